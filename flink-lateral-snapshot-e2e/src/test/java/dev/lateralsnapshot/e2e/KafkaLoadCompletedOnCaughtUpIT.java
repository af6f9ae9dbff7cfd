/*
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package dev.lateralsnapshot.e2e;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static dev.lateralsnapshot.e2e.KafkaTables.enrichedRow;
import static dev.lateralsnapshot.e2e.KafkaTables.insert;
import static dev.lateralsnapshot.e2e.KafkaTables.insertFrom;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.LOAD_COMPLETED_REASON;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code table.exec.lateral-snapshot.load-completed-on-caught-up} on a real broker, through the SQL
 * Client: the load phase ends when the customers' upsert topic has been read, without an idle
 * timeout and although its records are all older than the job, so that their watermark never
 * reaches the default load completed time; and a broker that hangs while the topic is read does not
 * end it. For contrast, the same hang with only an idle timeout of 10 s ends the load phase during
 * the hang, and orders then find half a table. docs/lateral-snapshot-join.md ("How the load phase
 * ends") quotes the figures these tests print.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(LocalKafkaAndFlink.class)
class KafkaLoadCompletedOnCaughtUpIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Duration QUIET = Duration.ofSeconds(2);
    private static final Duration PAUSE = Duration.ofSeconds(30);

    private static final String CAUGHT_UP =
            "SET 'table.exec.lateral-snapshot.load-completed-on-caught-up' = 'true';\n";

    /**
     * Options of the customers table that make its consumer slow: at most 16 KB of a partition per
     * fetch, about a hundred customers, so that the load of the pause tests takes tens of seconds.
     */
    private static final String SLOW_CONSUMER = KafkaTables.slowConsumer(16384);

    /** Customers of the pause tests, over three partitions. */
    private static final int CUSTOMERS = 60_000;

    /** Orders of the pause tests, each of another customer, spread over the whole table. */
    private static final int ORDERS = 6_000;

    private LocalFlinkCluster cluster;
    private LocalKafkaBroker broker;
    private int scripts;

    @BeforeAll
    void useClusterAndBroker() {
        broker = LocalKafkaAndFlink.broker();
        cluster = LocalKafkaAndFlink.cluster();
    }

    /**
     * Customers in partitions 0 and 2 of three, all ten minutes old; partition 1 is empty, and at
     * parallelism 2 Kafka's enumerator gives it a reader of its own, which reads nothing. The join
     * flips once both readers have caught up, within seconds, and every order finds its customer.
     */
    @Test
    void theLoadPhaseEndsAsSoonAsAnOldUpsertTopicIsRead() {
        KafkaTables tables = new KafkaTables(broker, "caught-up");
        tables.createTopics(broker, 2, 3);
        Instant t0 = Instant.now().minus(10, ChronoUnit.MINUTES).truncatedTo(ChronoUnit.SECONDS);
        int customers = 300;
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int id = 0; id < customers; id++) {
            records.add(tables.customer(id % 2 == 0 ? 0 : 2, id, tier(id), country(id), t0));
        }
        broker.send(records);

        JoinFlipLog flipLog = new JoinFlipLog(cluster);
        ClusterJob job =
                submit(
                        "SET 'parallelism.default' = '2';\n"
                                + CAUGHT_UP
                                + tables.ddl(KafkaTables.FROM_EARLIEST, "", ""),
                        insert("LEFT JOIN", "enriched_left"));
        List<ProducerRecord<String, String>> orders = new ArrayList<>();
        for (int id = 0; id < customers; id++) {
            orders.add(tables.order(id % 2, id, id, t0.plusSeconds(60)));
        }
        broker.send(orders);

        job.awaitMetricOnEverySubtask(CURRENT_PHASE, TIMEOUT, phase -> phase == 1);
        assertThat(job.metric(LOAD_COMPLETED_REASON))
                .as("the load phase ended with the customers' backlog on every subtask")
                .containsOnly(3.0);
        long loadPhase = maxLoadPhaseMillis(flipLog);
        List<String> rows = read(tables.enrichedLeft, customers);
        assertThat(rows).hasSize(customers);
        for (String row : rows) {
            int customer = Integer.parseInt(row.split(",")[1]);
            assertThat(row).endsWith("," + tier(customer) + "," + country(customer));
        }
        System.out.printf(
                "[kafka] load-completed-on-caught-up: an upsert topic of %d customers, ten minutes"
                        + " old, on 3 partitions (one empty) at parallelism 2, read in a load"
                        + " phase of %d ms; %d orders out, all enriched%n",
                customers, loadPhase, rows.size());
        assertThat(loadPhase)
                .as("the load phase ends when the topic is read, not after a grace period")
                .isLessThan(20_000);
    }

    /**
     * The broker hangs for 30 s while the customers are read: the join stays in the load phase
     * through the hang, flips once the topic has been read after it, and every order comes out
     * once, with its customer.
     */
    @Test
    void aHangingBrokerDoesNotEndTheLoadPhase() {
        Paused run = loadWithAPause("paused", CAUGHT_UP, new String[0]);

        assertThat(run.phaseAtTheEndOfThePause)
                .as("phase at the end of the pause")
                .containsOnly(0.0);
        assertThat(run.reason).as("how the load phase ended").containsOnly(3.0);
        assertThat(run.unmatched).as("orders without their customer").isZero();
        assertThat(run.orders).isEqualTo(ORDERS);
        run.print("load-completed-on-caught-up");
    }

    /** For contrast: an idle timeout of 10 s ends the load phase 10 s into the same hang. */
    @Test
    void anIdleTimeoutEndsTheLoadPhaseDuringTheHang() {
        Paused run =
                loadWithAPause(
                        "idle-timeout",
                        "",
                        new String[] {"load_completed_idle_timeout => INTERVAL '10' SECOND"});

        assertThat(run.phaseAtTheEndOfThePause)
                .as("phase at the end of the pause")
                .containsOnly(1.0);
        assertThat(run.reason).as("how the load phase ended").containsOnly(2.0);
        assertThat(run.unmatched).as("orders joined with half a table").isPositive();
        assertThat(run.orders).isEqualTo(ORDERS);
        run.print("only load_completed_idle_timeout => INTERVAL '10' SECOND");
    }

    /** What a load with a 30 s pause of the broker gave. */
    private record Paused(
            List<Double> phaseAtTheEndOfThePause,
            List<Double> reason,
            long loadPhaseMillis,
            int orders,
            long unmatched) {

        void print(String setting) {
            System.out.printf(
                    "[kafka] %d customers on 3 partitions read by a slow consumer, the broker"
                            + " paused for %d s during the load, %s: phase at the end of the"
                            + " pause %s, loadCompletedReason %s, load phase %d ms, %d orders out"
                            + " once each, %d of them without their customer%n",
                    CUSTOMERS,
                    PAUSE.toSeconds(),
                    setting,
                    phaseAtTheEndOfThePause,
                    reason,
                    loadPhaseMillis,
                    orders,
                    unmatched);
        }
    }

    /**
     * Writes the customers and the orders, runs the LEFT JOIN with the settings and arguments,
     * pauses the broker for {@link #PAUSE} once a fifth of the customers have been read, and reads
     * the enriched orders back.
     */
    private Paused loadWithAPause(String prefix, String settings, String[] arguments) {
        KafkaTables tables = new KafkaTables(broker, prefix);
        tables.createTopics(broker, 2, 3);
        Instant t0 = Instant.now().minus(30, ChronoUnit.MINUTES).truncatedTo(ChronoUnit.SECONDS);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int id = 0; id < CUSTOMERS; id++) {
            records.add(tables.customer(id % 3, id, tier(id), country(id), t0.plusMillis(id)));
        }
        for (int order = 0; order < ORDERS; order++) {
            records.add(
                    tables.order(
                            order % 2,
                            order,
                            customerOf(order),
                            t0.plusSeconds(600).plusMillis(order)));
        }
        broker.send(records);

        JoinFlipLog flipLog = new JoinFlipLog(cluster);
        ClusterJob job =
                submit(
                        "SET 'parallelism.default' = '2';\n"
                                + settings
                                + tables.ddl("", SLOW_CONSUMER, ""),
                        insertFrom(
                                "orders /*+ OPTIONS('scan.startup.mode' = 'earliest-offset') */",
                                "customers",
                                "LEFT JOIN",
                                "enriched_left",
                                arguments));
        Instant fifth = t0.plusMillis(CUSTOMERS / 5);
        job.awaitMetricOnEverySubtask(
                CURRENT_BUILD_SIDE_WATERMARK, TIMEOUT, w -> w >= fifth.toEpochMilli());
        assertThat(job.metric(CURRENT_PHASE))
                .as("still loading before the pause")
                .containsOnly(0.0);

        List<Double> phaseAtTheEndOfThePause;
        broker.pause();
        try {
            Wait.sleep(PAUSE);
            phaseAtTheEndOfThePause = job.metric(CURRENT_PHASE);
        } finally {
            broker.resume();
        }

        job.awaitMetricOnEverySubtask(CURRENT_PHASE, Duration.ofMinutes(3), phase -> phase == 1);
        List<Double> reason = job.metric(LOAD_COMPLETED_REASON);
        List<ConsumerRecord<String, String>> output =
                broker.readCommitted(tables.enrichedLeft, ORDERS, QUIET, Duration.ofMinutes(3));
        Set<Long> seen = new HashSet<>();
        long unmatched = 0;
        for (ConsumerRecord<String, String> record : output) {
            String[] row = enrichedRow(record.value()).split(",");
            long order = Long.parseLong(row[0]);
            int customer = customerOf(order);
            assertThat(seen.add(order)).as("order %s once", order).isTrue();
            if (row[2].equals("null")) {
                unmatched++;
            } else {
                assertThat(row[2] + "," + row[3])
                        .isEqualTo(tier(customer) + "," + country(customer));
            }
        }
        return new Paused(
                phaseAtTheEndOfThePause,
                reason,
                maxLoadPhaseMillis(flipLog),
                seen.size(),
                unmatched);
    }

    /** The customer of an order: orders walk the whole table, ten customers apart. */
    private static int customerOf(long order) {
        return (int) (order * 10 % CUSTOMERS);
    }

    private static String tier(int customer) {
        return "tier-" + customer % 7;
    }

    private static String country(int customer) {
        return "country-" + customer % 11;
    }

    private static long maxLoadPhaseMillis(JoinFlipLog flipLog) {
        return Wait.until(
                        TIMEOUT,
                        "both join subtasks log their flip",
                        flipLog::flips,
                        flips -> flips.loadPhaseMillis().size() == 2)
                .loadPhaseMillis()
                .stream()
                .mapToLong(Long::longValue)
                .max()
                .orElseThrow();
    }

    /**
     * Runs the SQL Client with the DDL as its init script and the INSERT in a file; returns the job
     * once it runs.
     */
    private ClusterJob submit(String ddl, String insert) {
        try {
            int script = ++scripts;
            Path init = cluster.runDirectory().resolve("caught-up-ddl-" + script + ".sql");
            Path file = cluster.runDirectory().resolve("caught-up-insert-" + script + ".sql");
            Files.writeString(init, ddl);
            Files.writeString(file, insert);
            return ClusterJob.submittedBySqlClient(
                    cluster.rest(), cluster.sqlClientWithFile(init, file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<String> read(String topic, int expected) {
        List<String> rows = new ArrayList<>();
        for (ConsumerRecord<String, String> record :
                broker.readCommitted(topic, expected, QUIET, TIMEOUT)) {
            rows.add(enrichedRow(record.value()));
        }
        return rows;
    }
}
