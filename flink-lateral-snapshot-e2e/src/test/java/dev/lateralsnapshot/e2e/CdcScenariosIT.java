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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static dev.lateralsnapshot.e2e.KafkaTables.enrichedRow;
import static dev.lateralsnapshot.e2e.KafkaTables.exactlyOnce;
import static dev.lateralsnapshot.e2e.KafkaTables.insertFrom;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.LOAD_COMPLETED_REASON;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_BUILD_SIDE_CHANGES_APPLIED;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_BUILD_RETRACTIONS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The LATERAL SNAPSHOT join over a PostgreSQL table captured by Debezium, end to end through the
 * SQL Client on the assembled cluster, with real failures (docs/reliability.md, "Change data
 * capture"). One job, in stages, each checked order by order against a model of the table:
 *
 * <ol>
 *   <li>A table of customers (100,000 by default; {@code -Pcdc-full} a million) snapshotted by
 *       Debezium while the orders wait in their topic; the Connect worker is killed with SIGKILL
 *       during the snapshot and started again, and Debezium takes the snapshot again. The join
 *       starts once the snapshot is in the topic, and every waiting order must find the complete
 *       table.
 *   <li>A TaskManager killed during the load phase, while the join reads the snapshot: the job
 *       restores the part of the table its checkpoint holds, reads the rest, and the load phase
 *       still ends only with the end of the customers' backlog.
 *   <li>Rounds of changes in PostgreSQL in the join phase, each one transaction: updates, deletes,
 *       and primary keys changed. The orders of a round are written once the join has applied the
 *       round, and read back before the next round: each must see its round's table, none a later
 *       one.
 *   <li>The worker killed with SIGKILL while it writes a round into Kafka, and started again. The
 *       connector runs exactly once (its records and offsets in one Kafka transaction) and the job
 *       reads Debezium's topic {@code read_committed}: nothing may arrive twice.
 *   <li>A TaskManager killed after the orders of a round were written; the sink writes in
 *       transactions, read back {@code read_committed}.
 *   <li>{@code ALTER TABLE ... ADD COLUMN} while the job runs, and a round after it.
 * </ol>
 *
 * <p>Every order must come out exactly once, with the customer its round's table has. A round ends
 * with a second transaction that changes a marker customer: once the join's build watermark has
 * reached the marker's commit time, the join has applied the whole round.
 */
@ExtendWith({LocalKafkaAndFlink.class, LocalPostgresAndConnect.class})
class CdcScenariosIT {

    private static final int CUSTOMERS = Integer.getInteger("cdc.customers", 100_000);
    private static final int WAITING_ORDERS = Integer.getInteger("cdc.orders", 20_000);
    private static final int ORDERS_PER_ROUND = 1_000;

    /** The customer whose change ends a round. */
    private static final int MARKER = -1;

    /** Where a round moves the customers whose primary key it changes. */
    private static final int MOVED = 10_000_000;

    private static final String CONNECTOR = "cdc-scenarios";
    private static final String TABLE = "members";
    private static final String TOPIC = CONNECTOR + ".public." + TABLE;

    /**
     * Options of the customers table that make the load of 100,000 customers, a few seconds at full
     * speed, long enough to aim a kill at: each fetch waits 200 ms and brings at most 12 bytes per
     * customer of the table from its partition. A round of changes, 10,000 records, takes a few
     * fetches. A million customers ({@code -Pcdc-full}) are read at full speed: their load is long
     * without it, and the one run with fetches of 12 MB ran the TaskManagers (1,536 MB each) out of
     * heap.
     */
    private static final String CUSTOMERS_OPTIONS =
            CUSTOMERS <= 100_000 ? KafkaTables.slowConsumer(CUSTOMERS * 12) : "";

    private static final Duration TIMEOUT = Duration.ofSeconds(180);
    private static final Duration QUIET = Duration.ofSeconds(1);
    private static final Duration SETTLE_AFTER_RESTART = Duration.ofSeconds(2);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final LocalKafkaBroker broker = LocalKafkaAndFlink.broker();
    private final LocalFlinkCluster cluster = LocalKafkaAndFlink.cluster();
    private final LocalPostgres postgres = LocalPostgresAndConnect.postgres();
    private final LocalConnectWorker connect = LocalPostgresAndConnect.connect();
    private final KafkaTables tables = new KafkaTables(broker, "cdc-scenarios");

    /** The table as the join must see it: customer id to "tier,country". */
    private final Map<Integer, String> customers = new HashMap<>();

    /** Every order written, by id, to the row the join must emit for it. */
    private final Map<Long, String> expected = new HashMap<>();

    private long nextOrder;

    /** Debezium's changes read so far from the topic, and where the next read starts. */
    private final List<JsonNode> changes = new ArrayList<>();

    private Map<Integer, Long> cursor = Map.of();

    @Test
    void ordersSeeTheirRoundsTableExactlyOnceThroughSnapshotChangesAndFailures() {
        long start = System.nanoTime();
        broker.createTopic(tables.orders, 2, Map.of());
        broker.createTopic(tables.enrichedLeft, 2, Map.of());

        // ---- 1: the snapshot, killed and taken again, while the orders wait ----
        postgres.psql(
                "CREATE TABLE "
                        + TABLE
                        + " (customer_id INT PRIMARY KEY, tier TEXT NOT NULL, country TEXT NOT"
                        + " NULL);\n"
                        + "ALTER TABLE "
                        + TABLE
                        + " REPLICA IDENTITY FULL;\n"
                        + "INSERT INTO "
                        + TABLE
                        + " SELECT i, 'v0', 'c' || (i % 7) FROM generate_series(0, "
                        + (CUSTOMERS - 1)
                        + ") i;\n"
                        + "INSERT INTO "
                        + TABLE
                        + " VALUES ("
                        + MARKER
                        + ", 'v0', 'marker');\n");
        for (int id = 0; id < CUSTOMERS; id++) {
            customers.put(id, "v0,c" + id % 7);
        }
        customers.put(MARKER, "v0,marker");
        connect.addConnector(
                CONNECTOR, LocalPostgresAndConnect.debeziumConnector(CONNECTOR, TABLE));
        Wait.until(
                TIMEOUT,
                "a fifth of the snapshot in topic " + TOPIC,
                () -> topicSize() >= CUSTOMERS / 5);
        connect.kill();
        List<JsonNode> beforeTheKill = newChanges();
        int readAtTheKill = beforeTheKill.size();
        boolean killedDuringTheSnapshot =
                beforeTheKill.stream()
                        .noneMatch(
                                change ->
                                        change.path("source")
                                                .path("snapshot")
                                                .asText()
                                                .equals("last"));
        writeOrders(WAITING_ORDERS, 0);
        connect.restart();
        connect.awaitRunning(CONNECTOR);
        int snapshotRecords = awaitSnapshotEnd();

        long submitted = System.nanoTime();
        ClusterJob job = submit();

        // ---- a TaskManager killed during the load ----
        TaskManagerKills kills = new TaskManagerKills(cluster, SETTLE_AFTER_RESTART);
        double appliedAtTheKill =
                job.await(
                        TIMEOUT,
                        "a fifth of the snapshot applied in the load phase",
                        () -> sum(job.metric(NUM_BUILD_SIDE_CHANGES_APPLIED)),
                        applied -> applied >= snapshotRecords / 5.0);
        List<Double> phaseAtTheKill = job.metric(CURRENT_PHASE);
        assertThat(phaseAtTheKill).as("the phase before the kill in the load").containsOnly(0.0);
        kills.killJoinTaskManager(job);
        job.awaitMetricOnEverySubtask(CURRENT_PHASE, TIMEOUT, phase -> phase == 1);
        double loadSeconds = (System.nanoTime() - submitted) / 1e9;
        List<Double> reasons = job.metric(LOAD_COMPLETED_REASON);
        assertThat(reasons)
                .as("the end of the snapshot's backlog ended the load")
                .containsOnly(3.0);
        Result afterTheSnapshot = awaitOutput();
        afterTheSnapshot.assertExact("the orders that waited for the snapshot");
        long loaded = System.nanoTime();

        // ---- 2 to 5: rounds of changes in the join phase, with failures ----
        List<Long> roundRecords = new ArrayList<>();
        for (int round = 1; round <= 4; round++) {
            if (round == 4) {
                postgres.psql("ALTER TABLE " + TABLE + " ADD COLUMN email TEXT;");
            }
            long topicBefore = topicSize();
            commitRound(round);
            if (round == 2) {
                // Killed once the first of the round's records are committed in Kafka, while it
                // writes the others: its open transaction is aborted, and it goes on from the
                // offsets it committed with the records before, once it runs again.
                Wait.until(
                        TIMEOUT,
                        "the first records of round 2 in topic " + TOPIC,
                        () -> topicSize() > topicBefore);
                connect.kill();
                connect.restart();
                connect.awaitRunning(CONNECTOR);
            }
            long marker = markerCommitTime(round);
            job.awaitMetricOnEverySubtask(
                    CURRENT_BUILD_SIDE_WATERMARK, TIMEOUT, watermark -> watermark >= marker);
            roundRecords.add(topicSize() - topicBefore);
            // A restore from here on has the round applied.
            job.awaitCheckpointTriggeredFromNow(TIMEOUT);
            writeRoundOrders(round);
            if (round == 3) {
                kills.killJoinTaskManager(job);
            }
            awaitOutput().assertExact("the orders of round " + round);
        }

        assertThat(sentTwice()).as("changes that a read_committed reader sees twice").isZero();
        assertThat(changes.get(changes.size() - 1).path("after").has("email"))
                .as("Debezium's changes after ADD COLUMN carry the column")
                .isTrue();
        Result result = awaitOutput();
        result.assertExact("every order");
        assertThat(job.state()).as("the job after ADD COLUMN").isEqualTo("RUNNING");
        assertThat(job.restarts())
                .as("restarts for the killed TaskManagers")
                .isGreaterThanOrEqualTo(kills.kills());
        double unmatchedRetractions = sum(job.metric(NUM_UNMATCHED_BUILD_RETRACTIONS));
        System.out.printf(
                "[cdc] PostgreSQL, Debezium, Kafka, LATERAL SNAPSHOT (parallelism 2, exactly-once"
                        + " sink, read_committed): %d customers snapshotted, worker killed %s the"
                        + " snapshot after %d records and restarted, %d snapshot records in the"
                        + " topic; %d orders waited for the snapshot; a TaskManager killed in the"
                        + " load phase (phase %s) after %.0f build changes applied, load phase"
                        + " with the kill %.1f s, ended by the backlog %s; 4 rounds of changes"
                        + " in the join phase (updates, deletes, primary keys changed; offsets"
                        + " of the topic per round %s, the worker killed while it wrote round 2,"
                        + " %d changes sent twice; a TaskManager killed after the orders of round"
                        + " 3; a column added before round 4): %d orders in, %d out, %d"
                        + " duplicates, %d missing, %d joined with another table than their"
                        + " round's, %d job restarts, %d TaskManagers killed, 2 worker restarts,"
                        + " numUnmatchedBuildRetractions %.0f; snapshot to the last waiting order"
                        + " out %.1f s, the rounds %.1f s%n",
                CUSTOMERS,
                killedDuringTheSnapshot ? "during" : "after",
                readAtTheKill,
                snapshotRecords,
                WAITING_ORDERS,
                phaseAtTheKill,
                appliedAtTheKill,
                loadSeconds,
                reasons,
                roundRecords,
                sentTwice(),
                expected.size(),
                result.rows(),
                result.duplicates(),
                result.missing(),
                result.wrong(),
                job.restarts(),
                kills.kills(),
                unmatchedRetractions,
                (loaded - start) / 1e9,
                (System.nanoTime() - loaded) / 1e9);
        assertThat(killedDuringTheSnapshot).as("the worker killed during the snapshot").isTrue();
    }

    // ---- the database ----

    /**
     * Commits a round of changes as one transaction, and then, in a transaction of its own that
     * commits later, the marker's change: customers {@code id % 10 == round} get tier {@code
     * v<round>}, customers {@code id % 1000 == 500 + round} are deleted, and customers {@code id %
     * 1000 == 600 + round} move to the key {@code id + MOVED}. From round 4 on, the added column is
     * set too.
     */
    private void commitRound(int round) {
        String tier = "'v" + round + "'";
        String email = round >= 4 ? ", email = 'x@" + round + "'" : "";
        postgres.psql(
                "BEGIN;\n"
                        + ("UPDATE " + TABLE + " SET tier = " + tier + email)
                        + (" WHERE customer_id >= 0 AND customer_id % 10 = " + round + ";\n")
                        + ("DELETE FROM " + TABLE + " WHERE customer_id % 1000 = ")
                        + (500 + round)
                        + ";\n"
                        + ("UPDATE " + TABLE + " SET customer_id = customer_id + " + MOVED)
                        + (" WHERE customer_id >= 0 AND customer_id < " + MOVED)
                        + (" AND customer_id % 1000 = " + (600 + round) + ";\n")
                        + "COMMIT;\n"
                        + "SELECT pg_sleep(0.01);\n"
                        + ("UPDATE " + TABLE + " SET tier = " + tier)
                        + (" WHERE customer_id = " + MARKER + ";\n"));
        Map<Integer, String> next = new HashMap<>();
        for (Map.Entry<Integer, String> customer : customers.entrySet()) {
            int id = customer.getKey();
            String row = customer.getValue();
            if (id >= 0 && id % 10 == round || id == MARKER) {
                row = "v" + round + row.substring(row.indexOf(','));
            }
            if (id >= 0 && id % 1000 == 500 + round) {
                continue;
            }
            if (id >= 0 && id < MOVED && id % 1000 == 600 + round) {
                id += MOVED;
            }
            next.put(id, row);
        }
        customers.clear();
        customers.putAll(next);
    }

    /** The commit time of the marker's change of the round, as Debezium sent it. */
    private long markerCommitTime(int round) {
        return Wait.until(
                TIMEOUT,
                "the marker's change of round " + round + " in topic " + TOPIC,
                () -> {
                    long commitTime = Long.MIN_VALUE;
                    for (JsonNode change : newChanges()) {
                        JsonNode after = change.path("after");
                        if (after.path("customer_id").asInt() == MARKER
                                && after.path("tier").asText().equals("v" + round)) {
                            commitTime = change.path("source").path("ts_ms").asLong();
                        }
                    }
                    return commitTime;
                },
                commitTime -> commitTime != Long.MIN_VALUE);
    }

    /**
     * Waits until the topic holds a snapshot's last record ({@code source.snapshot = "last"});
     * returns how many snapshot records ({@code op = r}) it holds.
     */
    private int awaitSnapshotEnd() {
        Wait.until(
                TIMEOUT,
                "the last record of a snapshot in topic " + TOPIC,
                () ->
                        newChanges().stream()
                                .anyMatch(
                                        change ->
                                                change.path("source")
                                                        .path("snapshot")
                                                        .asText()
                                                        .equals("last")));
        return (int)
                changes.stream().filter(change -> change.path("op").asText().equals("r")).count();
    }

    /**
     * The changes Debezium wrote into the topic since the last call (tombstones left out), which
     * are also kept in {@link #changes}.
     */
    private List<JsonNode> newChanges() {
        List<JsonNode> fresh = new ArrayList<>();
        Map<Integer, Long> next = new HashMap<>(cursor);
        for (ConsumerRecord<String, String> record : broker.readCommittedFrom(TOPIC, cursor)) {
            next.put(record.partition(), record.offset() + 1);
            if (record.value() != null) {
                try {
                    fresh.add(JSON.readTree(record.value()));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        cursor = next;
        changes.addAll(fresh);
        return fresh;
    }

    /** The records in the topic now, tombstones included. */
    private long topicSize() {
        return broker.endOffsets(TOPIC).values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * How many changes of the streaming phase the topic holds more than once: Debezium sends a
     * change again, the same transaction, log position, kind and row, when it starts from an offset
     * committed before it.
     */
    private long sentTwice() {
        Map<String, Integer> seen = new HashMap<>();
        for (JsonNode change : changes) {
            if (!change.path("op").asText().equals("r")) {
                String identity =
                        String.join(
                                "/",
                                change.path("source").path("txId").asText(),
                                change.path("source").path("lsn").asText(),
                                change.path("op").asText(),
                                change.path("before").toString(),
                                change.path("after").toString());
                seen.merge(identity, 1, Integer::sum);
            }
        }
        return seen.values().stream().filter(count -> count > 1).count();
    }

    // ---- the orders ----

    /** Writes orders for customers spread over the table, each expecting its customer now. */
    private void writeOrders(int count, int round) {
        List<Integer> ids = new ArrayList<>();
        for (int order = 0; order < count; order++) {
            ids.add((int) ((order * 7919L + round * 31L) % CUSTOMERS));
        }
        send(ids);
    }

    /**
     * The orders of a round: spread over the table, and one for each customer the round deleted,
     * and for the old and the new key of each customer it moved.
     */
    private void writeRoundOrders(int round) {
        writeOrders(ORDERS_PER_ROUND, round);
        List<Integer> ids = new ArrayList<>();
        for (int id = 500 + round; id < CUSTOMERS; id += 1000) {
            ids.add(id);
        }
        for (int id = 600 + round; id < CUSTOMERS; id += 1000) {
            ids.add(id);
            ids.add(id + MOVED);
        }
        send(ids);
    }

    private void send(List<Integer> customerIds) {
        Instant now = Instant.now();
        List<ProducerRecord<String, String>> batch = new ArrayList<>();
        for (int customer : customerIds) {
            long order = nextOrder++;
            expected.put(
                    order,
                    order + "," + customer + "," + customers.getOrDefault(customer, "null,null"));
            batch.add(tables.order((int) (order % 2), order, customer, now));
            if (batch.size() == 50_000) {
                broker.send(batch);
                batch = new ArrayList<>();
            }
        }
        broker.send(batch);
    }

    // ---- the job and its output ----

    private ClusterJob submit() {
        String settings =
                String.join(
                        "\n",
                        "SET 'parallelism.default' = '2';",
                        "SET 'execution.checkpointing.interval' = '2 s';",
                        "SET 'table.exec.lateral-snapshot.load-completed-on-caught-up' = 'true';",
                        // Debezium's topic has one partition: the source subtask without one
                        // sends no watermark, and would hold the build watermark back unless idle.
                        "SET 'table.exec.source.idle-timeout' = '500 ms';",
                        // A million waiting orders and customers do not fit the TaskManagers'
                        // heap: on RocksDB, as docs/kafka-tutorial.md advises for a backlog.
                        CUSTOMERS > 100_000
                                ? "SET 'state.backend.type' = 'rocksdb';\n"
                                        + "SET 'execution.checkpointing.incremental' = 'true';"
                                : "",
                        "");
        return ClusterJob.submittedWithSqlClient(
                cluster,
                "cdc-scenarios",
                settings
                        + tables.debeziumDdl(
                                TOPIC,
                                CUSTOMERS_OPTIONS,
                                tables.enrichedLeft,
                                exactlyOnce(tables.enrichedLeft)),
                insertFrom("orders", "customers", "LEFT JOIN", "enriched"));
    }

    private static double sum(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).sum();
    }

    /** What the sink committed, against every order written so far. */
    private Result awaitOutput() {
        List<ConsumerRecord<String, String>> records =
                broker.readCommitted(tables.enrichedLeft, expected.size(), QUIET, TIMEOUT);
        Map<Long, Integer> seen = new HashMap<>();
        List<String> wrong = new ArrayList<>();
        for (ConsumerRecord<String, String> record : records) {
            String row = enrichedRow(record.value());
            long order = Long.parseLong(row.substring(0, row.indexOf(',')));
            seen.merge(order, 1, Integer::sum);
            if (!row.equals(expected.get(order))) {
                wrong.add(row + " (expected " + expected.get(order) + ")");
            }
        }
        long duplicates = seen.values().stream().filter(count -> count > 1).count();
        long missing = expected.keySet().stream().filter(order -> !seen.containsKey(order)).count();
        return new Result(records.size(), duplicates, missing, wrong);
    }

    /** The committed output: its rows, and the orders duplicated, missing and joined wrong. */
    private record Result(int rows, long duplicates, long missing, List<String> wrongRows) {

        long wrong() {
            return wrongRows.size();
        }

        void assertExact(String what) {
            assertThat(wrongRows.stream().limit(10).collect(Collectors.toList()))
                    .as(
                            "%s joined with another table than their round's (%d in all, the"
                                    + " first 10)",
                            what, wrongRows.size())
                    .isEmpty();
            assertThat(duplicates).as("%s: duplicates", what).isZero();
            assertThat(missing).as("%s: missing", what).isZero();
        }
    }
}
