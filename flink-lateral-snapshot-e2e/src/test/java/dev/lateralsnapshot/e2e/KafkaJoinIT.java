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
import org.junit.jupiter.api.TestInfo;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static dev.lateralsnapshot.e2e.KafkaTables.FROM_EARLIEST;
import static dev.lateralsnapshot.e2e.KafkaTables.enrichedRow;
import static dev.lateralsnapshot.e2e.KafkaTables.exactlyOnce;
import static dev.lateralsnapshot.e2e.KafkaTables.insert;
import static dev.lateralsnapshot.e2e.KafkaTables.insertFrom;
import static dev.lateralsnapshot.e2e.KafkaTables.loadCompletedTime;
import static dev.lateralsnapshot.e2e.ReleaseTestingPlanTestBase.NO_WATERMARK;
import static dev.lateralsnapshot.e2e.ReleaseTestingPlanTestBase.restoring;
import static dev.lateralsnapshot.e2e.ReleaseTestingPlanTestBase.stopWithSavepoint;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_BUILD_SIDE_CHANGES_APPLIED;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_PROBE_SIDE_RECORDS_BUFFERED;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_BUILD_RETRACTIONS;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_PROBE_RECORDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Both sides of the join read from Kafka, on a real broker: a {@link LocalKafkaBroker} (KRaft, its
 * own JVM) next to a {@link LocalFlinkCluster} whose {@code lib/} holds the drop-in jar and Flink's
 * Kafka SQL connector, shared with the other Kafka tests ({@link LocalKafkaAndFlink}). Jobs are
 * submitted through the SQL Client; the enriched orders are written to Kafka topics and read back
 * with a Kafka consumer; the join's metrics come from the REST API.
 *
 * <p>Every test has topics of its own. The tests set the timestamp of every record they write, so
 * the row times, and with them the watermarks and the flip, are the tests' choice; they lie in the
 * recent past, where the broker accepts them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(LocalKafkaAndFlink.class)
class KafkaJoinIT {

    private static final Pattern SQL_CLIENT_JOB_ID = Pattern.compile("Job ID: ([0-9a-f]{32})");

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /**
     * How long no further record may come after the expected ones: none must. Longer than a
     * checkpoint interval, after which an exactly-once sink commits what it wrote.
     */
    private static final Duration QUIET = Duration.ofSeconds(2);

    private LocalFlinkCluster cluster;
    private LocalKafkaBroker broker;
    private int scripts;

    @BeforeAll
    void useClusterAndBroker() {
        broker = LocalKafkaAndFlink.broker();
        cluster = LocalKafkaAndFlink.cluster();
    }

    /**
     * Orders LEFT JOIN and JOIN customers from an upsert topic: the orders written before the flip
     * are buffered and come out at the flip against the loaded customers; an update and a delete
     * (tombstone) of customers are seen by the orders after them; an unknown customer is padded
     * with NULLs by the LEFT JOIN and dropped by the JOIN.
     */
    @Test
    void enrichesOrdersWithCustomersFromAnUpsertTopic(TestInfo test) {
        long start = System.nanoTime();
        KafkaTables tables = new KafkaTables(broker, "enrich");
        tables.createTopics(broker, 1, 1);
        Instant t0 = Instant.now().minus(10, ChronoUnit.MINUTES).truncatedTo(ChronoUnit.SECONDS);
        Instant loadCompleted = t0.plusSeconds(10);

        // ---- load phase: three customers and four orders, one of an unknown customer ----
        sendThreeCustomersAndFourOrders(tables, t0);
        List<ClusterJob> jobs =
                submit(
                        tables.ddl(FROM_EARLIEST, "", ""),
                        insert("LEFT JOIN", "enriched_left", loadCompletedTime(loadCompleted)),
                        insert("JOIN", "enriched_inner", loadCompletedTime(loadCompleted)));
        ClusterJob left = jobs.get(0);
        ClusterJob inner = jobs.get(1);
        for (ClusterJob job : jobs) {
            job.awaitMetric(NUM_PROBE_SIDE_RECORDS_BUFFERED, TIMEOUT, n -> n == 4);
            job.awaitMetric(
                    CURRENT_BUILD_SIDE_WATERMARK, TIMEOUT, w -> w == millis(t0.plusSeconds(3)));
            assertThat(job.metricValue(CURRENT_PHASE)).as("load phase").isZero();
        }
        assertThat(broker.readCommitted(tables.enrichedLeft, 0, QUIET, TIMEOUT))
                .as("nothing written in the load phase")
                .isEmpty();

        // ---- the flip: a customer at the load completion time ----
        broker.send(List.of(tables.customer(0, 5, "gold", "FR", loadCompleted)));
        for (ClusterJob job : jobs) {
            job.awaitMetric(CURRENT_PHASE, TIMEOUT, phase -> phase == 1);
        }
        assertThat(read(tables.enrichedLeft, 4))
                .containsExactlyInAnyOrder(
                        "1,1,gold,US", "2,2,silver,UK", "3,3,bronze,DE", "4,4,null,null");
        assertThat(read(tables.enrichedInner, 3))
                .containsExactlyInAnyOrder("1,1,gold,US", "2,2,silver,UK", "3,3,bronze,DE");

        // ---- join phase: customer 1 upgraded, customer 2 deleted, then four more orders ----
        Instant tombstone = t0.plusSeconds(21);
        broker.send(
                List.of(
                        tables.customer(0, 1, "platinum", "US", t0.plusSeconds(20)),
                        tables.deleteCustomer(0, 2, tombstone)));
        for (ClusterJob job : jobs) {
            job.awaitMetric(CURRENT_BUILD_SIDE_WATERMARK, TIMEOUT, w -> w >= millis(tombstone));
        }
        broker.send(
                List.of(
                        tables.order(0, 5, 1, t0.plusSeconds(30)),
                        tables.order(0, 6, 2, t0.plusSeconds(31)),
                        tables.order(0, 7, 3, t0.plusSeconds(32)),
                        tables.order(0, 8, 4, t0.plusSeconds(33))));
        List<String> leftRows = read(tables.enrichedLeft, 8);
        assertThat(leftRows)
                .containsExactlyInAnyOrder(
                        "1,1,gold,US",
                        "2,2,silver,UK",
                        "3,3,bronze,DE",
                        "4,4,null,null",
                        "5,1,platinum,US",
                        "6,2,null,null",
                        "7,3,bronze,DE",
                        "8,4,null,null");
        List<String> innerRows = read(tables.enrichedInner, 5);
        assertThat(innerRows)
                .containsExactlyInAnyOrder(
                        "1,1,gold,US",
                        "2,2,silver,UK",
                        "3,3,bronze,DE",
                        "5,1,platinum,US",
                        "7,3,bronze,DE");

        for (ClusterJob job : jobs) {
            // Orders 4, 6 and 8: padded by the LEFT JOIN, dropped by the JOIN; counted by both.
            job.awaitMetric(NUM_UNMATCHED_PROBE_RECORDS, TIMEOUT, n -> n == 3);
            assertThat(job.metricValue(NUM_UNMATCHED_BUILD_RETRACTIONS)).isZero();
            assertThat(job.metricValue(NUM_PROBE_SIDE_RECORDS_BUFFERED)).isZero();
        }
        System.out.printf(
                "[kafka] %s: 8 orders and 7 customer records in (1 update, 1 tombstone),"
                        + " %d rows out of the LEFT JOIN, %d of the JOIN, 0 duplicates, %.1f s%n",
                test.getDisplayName(),
                leftRows.size(),
                innerRows.size(),
                (System.nanoTime() - start) / 1e9);
        assertThat(left.state()).isEqualTo("RUNNING");
        assertThat(inner.state()).isEqualTo("RUNNING");
    }

    /**
     * Watermark alignment on both sources and idle partitions on both topics: the customers are all
     * in one of three partitions, the orders in one of two, at parallelism 2. With {@code
     * table.exec.source.idle-timeout} the empty partitions are marked idle, the build watermark is
     * that of the partition with data, and the join flips; without it they hold the build watermark
     * at Long.MIN_VALUE and the join keeps loading. An idle build side does not hold the orders
     * back either: orders far ahead of the build watermark (more than the alignment's drift) still
     * come out, also after a customer update that woke the build side up.
     */
    @Test
    void flipsWithWatermarkAlignmentAndIdlePartitions() {
        long start = System.nanoTime();
        KafkaTables tables = new KafkaTables(broker, "aligned");
        tables.createTopics(broker, 2, 3);
        Instant t0 = Instant.now().minus(10, ChronoUnit.MINUTES).truncatedTo(ChronoUnit.SECONDS);
        Instant loadCompleted = t0.plusSeconds(10);
        sendThreeCustomersAndFourOrders(tables, t0);
        broker.send(List.of(tables.customer(0, 5, "gold", "FR", loadCompleted)));

        String alignment =
                ", 'scan.watermark.alignment.group' = 'enrichment',"
                        + " 'scan.watermark.alignment.max-drift' = '10 s',"
                        + " 'scan.watermark.alignment.update-interval' = '500 ms'";
        List<ClusterJob> jobs =
                submit(
                        "SET 'parallelism.default' = '2';\n"
                                + tables.ddl(FROM_EARLIEST + alignment, alignment, ""),
                        "SET 'table.exec.source.idle-timeout' = '2 s';\n"
                                + insert(
                                        "LEFT JOIN",
                                        "enriched_left",
                                        loadCompletedTime(loadCompleted)),
                        "RESET 'table.exec.source.idle-timeout';\n"
                                + insert(
                                        "JOIN",
                                        "enriched_inner",
                                        loadCompletedTime(loadCompleted)));
        ClusterJob idle = jobs.get(0);
        ClusterJob notIdle = jobs.get(1);
        assertThat(idle.joinVertex().path("parallelism").asInt()).isEqualTo(2);

        awaitOnEverySubtask(idle, CURRENT_PHASE, 1);
        // The build watermark is that of the one partition with data, on both join subtasks.
        awaitOnEverySubtask(idle, CURRENT_BUILD_SIDE_WATERMARK, millis(loadCompleted));
        assertThat(read(tables.enrichedLeft, 4))
                .containsExactlyInAnyOrder(
                        "1,1,gold,US", "2,2,silver,UK", "3,3,bronze,DE", "4,4,null,null");
        assertThat(notIdle.metric(CURRENT_PHASE)).as("still loading").containsOnly(0.0);
        assertThat(notIdle.metric(CURRENT_BUILD_SIDE_WATERMARK))
                .as("held back by the empty partitions")
                .containsOnly(NO_WATERMARK);

        // Orders five minutes ahead of the build watermark, far more than the drift: the idle
        // build side does not hold them back.
        Instant later = t0.plusSeconds(300);
        broker.send(
                List.of(tables.order(0, 5, 2, later), tables.order(0, 6, 3, later.plusSeconds(1))));
        assertThat(read(tables.enrichedLeft, 6)).contains("5,2,silver,UK", "6,3,bronze,DE");

        // A customer update wakes the build side up, behind the orders by more than the drift.
        broker.send(List.of(tables.customer(0, 1, "platinum", "US", t0.plusSeconds(20))));
        awaitOnEverySubtask(idle, CURRENT_BUILD_SIDE_WATERMARK, millis(t0.plusSeconds(20)));
        broker.send(List.of(tables.order(0, 7, 1, later.plusSeconds(2))));
        List<String> rows = read(tables.enrichedLeft, 7);
        assertThat(rows)
                .containsExactlyInAnyOrder(
                        "1,1,gold,US",
                        "2,2,silver,UK",
                        "3,3,bronze,DE",
                        "4,4,null,null",
                        "5,2,silver,UK",
                        "6,3,bronze,DE",
                        "7,1,platinum,US");
        assertThat(broker.readCommitted(tables.enrichedInner, 0, QUIET, TIMEOUT))
                .as("the join without idle timeout never flipped")
                .isEmpty();
        System.out.printf(
                "[kafka] watermark alignment and idle partitions (parallelism 2): 7 orders and 5"
                        + " customer records in, %d rows out, 0 duplicates, build watermark"
                        + " %d on both subtasks after the flip; without idle timeout still loading"
                        + " with no build watermark; %.1f s%n",
                rows.size(), loadCompleted.toEpochMilli(), (System.nanoTime() - start) / 1e9);
    }

    /**
     * A backlog: all orders and customers are in their topics before the job starts, and the job
     * reads both from the earliest offset, the orders through a hint on a table that starts at the
     * latest one. The join buffers the orders it reads before the customers are loaded, flips at
     * the last customer record, emits them in one burst, and every order comes out exactly once
     * with its customer. The sizes are the system properties {@code kafka.backlog.orders} and
     * {@code kafka.backlog.customers}; the profile {@code kafka-backlog-full} runs 1M and 100k.
     */
    @Test
    void drainsABacklogReadFromTheEarliestOffset() {
        long start = System.nanoTime();
        int orders = Integer.getInteger("kafka.backlog.orders", 100_000);
        int customers = Integer.getInteger("kafka.backlog.customers", 10_000);
        KafkaTables tables = new KafkaTables(broker, "backlog");
        tables.createTopics(broker, 2, 2);
        Instant t0 = Instant.now().minus(30, ChronoUnit.MINUTES).truncatedTo(ChronoUnit.SECONDS);
        // After every customer: the last record of each customers partition.
        Instant loadCompleted = t0.plusSeconds(200);

        List<ProducerRecord<String, String>> batch = new ArrayList<>();
        for (int id = 0; id < customers; id++) {
            batch.add(
                    tables.customer(
                            id % 2, id, backlogTier(id), backlogCountry(id), t0.plusMillis(id)));
            sendWhenFull(batch);
        }
        batch.add(tables.customer(0, customers, "marker", "XX", loadCompleted));
        batch.add(tables.customer(1, customers + 1, "marker", "XX", loadCompleted));
        for (long order = 1; order <= orders; order++) {
            batch.add(
                    tables.order(
                            (int) (order % 2),
                            order,
                            (int) (order % customers),
                            t0.plusSeconds(300).plusMillis(order)));
            sendWhenFull(batch);
        }
        broker.send(batch);
        long written = System.nanoTime();

        JoinFlipLog flipLog = new JoinFlipLog(cluster);
        ClusterJob job =
                submit(
                                "SET 'parallelism.default' = '2';\n"
                                        + "SET 'state.backend.type' = 'rocksdb';\n"
                                        + tables.ddl("", "", ""),
                                insertFrom(
                                        "orders /*+ OPTIONS('scan.startup.mode' = 'earliest-offset')"
                                                + " */",
                                        "customers",
                                        "LEFT JOIN",
                                        "enriched_left",
                                        loadCompletedTime(loadCompleted)))
                        .get(0);
        JoinFlipLog.Flips flips =
                Wait.until(
                        TIMEOUT,
                        "both join subtasks flip and join their buffered orders",
                        flipLog::flips,
                        f -> f.joinedRows().size() == 2);

        List<ConsumerRecord<String, String>> output =
                broker.readCommitted(tables.enrichedLeft, orders, QUIET, Duration.ofMinutes(5));
        Set<Long> seen = new HashSet<>();
        for (ConsumerRecord<String, String> record : output) {
            String row = enrichedRow(record.value());
            long order = Long.parseLong(row.substring(0, row.indexOf(',')));
            int customer = (int) (order % customers);
            assertThat(row)
                    .as("order %s with its customer, loaded before the flip", order)
                    .isEqualTo(
                            order
                                    + ","
                                    + customer
                                    + ","
                                    + backlogTier(customer)
                                    + ","
                                    + backlogCountry(customer));
            assertThat(seen.add(order)).as("order %s once", order).isTrue();
        }
        assertThat(seen).hasSize(orders);
        assertThat(job.metric(NUM_UNMATCHED_PROBE_RECORDS)).containsOnly(0.0);

        long buffered = flips.joinedRows().stream().mapToLong(Long::longValue).sum();
        long loadPhase =
                flips.loadPhaseMillis().stream().mapToLong(Long::longValue).max().orElseThrow();
        long drain = flips.drainMillis().stream().mapToLong(Long::longValue).max().orElseThrow();
        long firstOut = output.stream().mapToLong(ConsumerRecord::timestamp).min().getAsLong();
        long lastOut = output.stream().mapToLong(ConsumerRecord::timestamp).max().getAsLong();
        System.out.printf(
                "[kafka] backlog from the earliest offset (parallelism 2, RocksDB): %d orders and"
                        + " %d customers in, %d rows out, 0 duplicates; %d orders buffered at the"
                        + " flip (peak of numProbeSideRecordsBuffered, both subtasks), load phase"
                        + " %d ms, buffered orders joined in %d ms, all rows written within %d ms"
                        + " of the first; written in %.1f s, %.1f s in all%n",
                orders,
                customers + 2,
                output.size(),
                buffered,
                loadPhase,
                drain,
                lastOut - firstOut,
                (written - start) / 1e9,
                (System.nanoTime() - start) / 1e9);
        assertThat(buffered).as("orders buffered at the flip").isPositive();
    }

    /**
     * Stop with a savepoint in the load phase and in the join phase, with new records in both
     * topics while the job is stopped, and an exactly-once sink: restored in the load phase the job
     * goes on loading and emits the orders buffered before and after the savepoint at the flip;
     * restored in the join phase it joins at once against the restored customers. Nothing is lost
     * or written twice.
     */
    @Test
    void restoresFromSavepointsInBothPhases() {
        long start = System.nanoTime();
        KafkaTables tables = new KafkaTables(broker, "savepoints");
        tables.createTopics(broker, 1, 1);
        Instant t0 = Instant.now().minus(10, ChronoUnit.MINUTES).truncatedTo(ChronoUnit.SECONDS);
        Instant loadCompleted = t0.plusSeconds(10);
        String ddl =
                "SET 'execution.checkpointing.interval' = '1 s';\n"
                        + tables.ddl(FROM_EARLIEST, "", exactlyOnce(tables.enrichedLeft));
        String insert = insert("LEFT JOIN", "enriched_left", loadCompletedTime(loadCompleted));

        broker.send(
                List.of(
                        tables.customer(0, 1, "gold", "US", t0.plusSeconds(1)),
                        tables.customer(0, 2, "silver", "UK", t0.plusSeconds(2)),
                        tables.order(0, 1, 1, t0.plusSeconds(3)),
                        tables.order(0, 2, 2, t0.plusSeconds(4)),
                        tables.order(0, 3, 3, t0.plusSeconds(5))));
        ClusterJob loading = submit(ddl, insert).get(0);
        loading.awaitMetric(NUM_PROBE_SIDE_RECORDS_BUFFERED, TIMEOUT, n -> n == 3);

        // ---- stopped in the load phase; customer 3 and two orders come meanwhile ----
        String loadPhaseSavepoint = stopWithSavepoint(cluster, loading);
        broker.send(
                List.of(
                        tables.customer(0, 3, "bronze", "DE", t0.plusSeconds(6)),
                        tables.order(0, 4, 1, t0.plusSeconds(7)),
                        tables.order(0, 5, 3, t0.plusSeconds(8))));
        ClusterJob restoredLoading = submit(ddl, restoring(loadPhaseSavepoint, insert)).get(0);
        assertThat(restoredLoading.metricValue(CURRENT_PHASE)).as("still loading").isZero();
        // Counted since the restore: the three buffered before the savepoint are in state.
        restoredLoading.awaitMetric(NUM_PROBE_SIDE_RECORDS_BUFFERED, TIMEOUT, n -> n == 2);
        assertThat(broker.readCommitted(tables.enrichedLeft, 0, QUIET, TIMEOUT)).isEmpty();
        broker.send(List.of(tables.customer(0, 9, "gold", "FR", loadCompleted)));
        restoredLoading.awaitMetric(CURRENT_PHASE, TIMEOUT, phase -> phase == 1);
        List<String> flipped =
                List.of(
                        "1,1,gold,US",
                        "2,2,silver,UK",
                        "3,3,bronze,DE",
                        "4,1,gold,US",
                        "5,3,bronze,DE");
        assertThat(read(tables.enrichedLeft, 5)).containsExactlyInAnyOrderElementsOf(flipped);

        // ---- stopped in the join phase; customer 4 and an order of customer 2 meanwhile ----
        String joinPhaseSavepoint = stopWithSavepoint(cluster, restoredLoading);
        Instant customer4 = t0.plusSeconds(20);
        broker.send(
                List.of(
                        tables.customer(0, 4, "silver", "ES", customer4),
                        tables.order(0, 6, 2, t0.plusSeconds(21))));
        ClusterJob restoredJoining = submit(ddl, restoring(joinPhaseSavepoint, insert)).get(0);
        assertThat(restoredJoining.metricValue(CURRENT_PHASE)).as("join phase at once").isOne();
        restoredJoining.awaitMetric(
                CURRENT_BUILD_SIDE_WATERMARK, TIMEOUT, w -> w >= millis(customer4));
        broker.send(List.of(tables.order(0, 7, 4, t0.plusSeconds(22))));
        List<String> rows = read(tables.enrichedLeft, 7);
        List<String> expected = new ArrayList<>(flipped);
        expected.addAll(List.of("6,2,silver,UK", "7,4,silver,ES"));
        assertThat(rows).containsExactlyInAnyOrderElementsOf(expected);
        System.out.printf(
                "[kafka] stop with savepoint in the load and the join phase, exactly-once sink:"
                        + " 7 orders and 5 customer records in, %d rows out (read_committed), 0"
                        + " lost, 0 duplicates, 2 savepoints, 2 restores, %.1f s%n",
                rows.size(), (System.nanoTime() - start) / 1e9);
    }

    /**
     * Bad records on the customers topic, all before the flip: a value that is not JSON, a record
     * without a key, and a tombstone of a customer that never existed. With {@code
     * value.json.ignore-parse-errors} the join goes on and every order comes out; without it the
     * job fails with an error that shows the record.
     */
    @Test
    void badRecordsOnTheCustomersTopic() {
        long start = System.nanoTime();
        KafkaTables tables = new KafkaTables(broker, "bad-input");
        tables.createTopics(broker, 1, 1);
        Instant t0 = Instant.now().minus(10, ChronoUnit.MINUTES).truncatedTo(ChronoUnit.SECONDS);
        Instant loadCompleted = t0.plusSeconds(10);
        String notJson = "{\"customer_id\":7,\"tier\":\"gold\"";
        ProducerRecord<String, String> withoutKey =
                new ProducerRecord<>(
                        tables.customers,
                        0,
                        t0.plusSeconds(3).toEpochMilli(),
                        null,
                        "{\"customer_id\":8,\"tier\":\"gold\",\"country\":\"NL\"}");
        // A compacted topic, as an upsert topic should be, refuses a record without a key.
        assertThatThrownBy(() -> broker.send(List.of(withoutKey)))
                .hasStackTraceContaining("Compacted topic cannot accept message without key");
        broker.setTopicConfig(tables.customers, "cleanup.policy", "delete");
        broker.send(
                List.of(
                        tables.customer(0, 1, "gold", "US", t0.plusSeconds(1)),
                        new ProducerRecord<>(
                                tables.customers,
                                0,
                                t0.plusSeconds(2).toEpochMilli(),
                                "{\"customer_id\":7}",
                                notJson),
                        withoutKey,
                        tables.deleteCustomer(0, 99, t0.plusSeconds(4)),
                        tables.customer(0, 10, "silver", "SE", t0.plusSeconds(5)),
                        tables.customer(0, 11, "gold", "FR", loadCompleted),
                        tables.order(0, 1, 1, t0.plusSeconds(6)),
                        tables.order(0, 2, 7, t0.plusSeconds(7)),
                        tables.order(0, 3, 8, t0.plusSeconds(8)),
                        tables.order(0, 4, 10, t0.plusSeconds(9))));
        List<ClusterJob> jobs =
                submitWithoutWaiting(
                        tables.ddl(FROM_EARLIEST, ", 'value.json.ignore-parse-errors' = 'true'", "")
                                + tables.customersTable("customers_strict", "")
                                + ";\n",
                        insert("LEFT JOIN", "enriched_left", loadCompletedTime(loadCompleted)),
                        "SET 'restart-strategy.type' = 'none';\n"
                                + insertFrom(
                                        "orders",
                                        "customers_strict",
                                        "LEFT JOIN",
                                        "enriched_inner",
                                        loadCompletedTime(loadCompleted)));
        ClusterJob lenient = jobs.get(0).awaitRunning();
        ClusterJob strict = jobs.get(1);

        // Without ignore-parse-errors: the job fails, and its error shows the record's value.
        Wait.until(
                TIMEOUT, "job " + strict.id() + " FAILED", () -> strict.state().equals("FAILED"));
        assertThat(strict.failureStackTraces().get(0))
                .contains("Failed to deserialize JSON '" + notJson + "'");

        // With it, the JSON format hands on an empty row for the value that is not JSON, which
        // the upsert-kafka source takes for a tombstone of its key (7); the record without a key
        // is dropped. The join reads the upsert topic without a ChangelogNormalize (its key is the
        // table's primary key), so both deletes of unknown customers (7 and 99) reach it and
        // delete nothing. Every order comes out.
        lenient.awaitMetric(CURRENT_PHASE, TIMEOUT, phase -> phase == 1);
        List<String> rows = read(tables.enrichedLeft, 4);
        assertThat(rows)
                .containsExactlyInAnyOrder(
                        "1,1,gold,US", "2,7,null,null", "3,8,null,null", "4,10,silver,SE");
        assertThat(lenient.metricValue(NUM_BUILD_SIDE_CHANGES_APPLIED))
                .as("customers 1, 10 and 11, and the deletes of 7 and 99")
                .isEqualTo(5);
        assertThat(lenient.metricValue(NUM_UNMATCHED_BUILD_RETRACTIONS))
                .as("the deletes of 7 and 99")
                .isEqualTo(2);
        System.out.printf(
                "[kafka] bad records on the customers topic: 4 orders and 6 customer records in (1"
                        + " not JSON, 1 without a key on a topic that is not compacted, 1"
                        + " tombstone of an unknown key); with ignore-parse-errors %d rows out, 0"
                        + " orders lost, 5 changes applied, 2 of them deletes of unknown keys (the"
                        + " tombstone, and the value that is not JSON), counted as unmatched"
                        + " retractions; without it the job failed naming the value; %.1f s%n",
                rows.size(), (System.nanoTime() - start) / 1e9);
    }

    /**
     * Customers 1 to 3 (gold US, silver UK, bronze DE) at 1 to 3 s after {@code t0}, then orders 1
     * to 4 of customers 1 to 4 (4 is unknown) at 4 to 7 s, all in partition 0.
     */
    private void sendThreeCustomersAndFourOrders(KafkaTables tables, Instant t0) {
        broker.send(
                List.of(
                        tables.customer(0, 1, "gold", "US", t0.plusSeconds(1)),
                        tables.customer(0, 2, "silver", "UK", t0.plusSeconds(2)),
                        tables.customer(0, 3, "bronze", "DE", t0.plusSeconds(3)),
                        tables.order(0, 1, 1, t0.plusSeconds(4)),
                        tables.order(0, 2, 2, t0.plusSeconds(5)),
                        tables.order(0, 3, 3, t0.plusSeconds(6)),
                        tables.order(0, 4, 4, t0.plusSeconds(7))));
    }

    private static String backlogTier(int customer) {
        return "tier-" + customer % 7;
    }

    private static String backlogCountry(int customer) {
        return "country-" + customer % 11;
    }

    /** Sends the records and empties the list once it holds a batch worth waiting for. */
    private void sendWhenFull(List<ProducerRecord<String, String>> batch) {
        if (batch.size() == 50_000) {
            broker.send(batch);
            batch.clear();
        }
    }

    // ---- submitting ----

    /**
     * Runs the SQL Client with the DDL as its init script ({@code -i}) and the INSERT statements in
     * a file ({@code -f}); returns the jobs they submitted, in their order, once they run.
     */
    private List<ClusterJob> submit(String ddl, String... inserts) {
        List<ClusterJob> jobs = submitWithoutWaiting(ddl, inserts);
        jobs.forEach(ClusterJob::awaitRunning);
        return jobs;
    }

    /** {@link #submit}, for jobs that may fail before all their tasks run. */
    private List<ClusterJob> submitWithoutWaiting(String ddl, String... inserts) {
        try {
            int script = ++scripts;
            Path init = cluster.runDirectory().resolve("kafka-ddl-" + script + ".sql");
            Path file = cluster.runDirectory().resolve("kafka-insert-" + script + ".sql");
            Files.writeString(init, ddl);
            Files.writeString(file, String.join("\n", inserts));
            String printed = cluster.sqlClientWithFile(init, file);
            List<ClusterJob> jobs = new ArrayList<>();
            Matcher jobId = SQL_CLIENT_JOB_ID.matcher(printed);
            while (jobId.find()) {
                jobs.add(new ClusterJob(cluster.rest(), jobId.group(1)));
            }
            assertThat(jobs).as("jobs submitted by:%n%s", printed).hasSize(inserts.length);
            return jobs;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- reading the enriched orders ----

    /**
     * The enriched orders of a topic as {@code order_id,customer_id,tier,country}, once there are
     * {@code expected} of them and no more follow.
     */
    private List<String> read(String topic, int expected) {
        return broker.readCommitted(topic, expected, QUIET, TIMEOUT).stream()
                .map(record -> enrichedRow(record.value()))
                .collect(Collectors.toList());
    }

    /** Waits until the join metric has the given value on every subtask. */
    private static void awaitOnEverySubtask(ClusterJob job, String metric, double value) {
        Wait.until(
                TIMEOUT,
                metric + " = " + value + " on every join subtask of job " + job.id(),
                () -> job.metric(metric),
                values -> values.stream().allMatch(v -> v == value));
    }

    private static double millis(Instant instant) {
        return instant.toEpochMilli();
    }
}
