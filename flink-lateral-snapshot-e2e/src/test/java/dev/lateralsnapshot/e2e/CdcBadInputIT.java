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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static dev.lateralsnapshot.e2e.KafkaTables.insertFrom;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_BUILD_SIDE_CHANGES_APPLIED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Debezium change that Flink's {@code debezium-json} format cannot read (docs/reliability.md,
 * "Change data capture"): an update of a table whose replica identity is PostgreSQL's default,
 * which Debezium sends without its before image. With the format's defaults the job fails on it,
 * again after each restart, with a message that names the topic, the partition and the offset from
 * which the failed record is the next; with {@code debezium-json.ignore-parse-errors} the update is
 * skipped, and later orders see the customer as it was before it, while inserts and deletes of the
 * same table still arrive.
 */
@ExtendWith({LocalKafkaAndFlink.class, LocalPostgresAndConnect.class})
class CdcBadInputIT {

    private static final String CONNECTOR = "cdc-bad-input";
    private static final String TABLE = "default_identity";
    private static final String TOPIC = CONNECTOR + ".public." + TABLE;

    /** How the build side's reader names the split it failed on, and where that stands. */
    private static final Pattern FAILED_SPLIT =
            Pattern.compile(
                    "of the source failed to read a record of its split \\[Partition: (\\S+),"
                            + " StartingOffset: (\\d+),");

    /** How Flink's Kafka source fails on a record its format cannot read. */
    private static final String DESERIALIZATION_FAILURE =
            "Failed to deserialize consumer record due to";

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final Duration QUIET = Duration.ofSeconds(1);

    private final LocalKafkaBroker broker = LocalKafkaAndFlink.broker();
    private final LocalFlinkCluster cluster = LocalKafkaAndFlink.cluster();
    private final LocalPostgres postgres = LocalPostgresAndConnect.postgres();
    private final LocalConnectWorker connect = LocalPostgresAndConnect.connect();
    private final KafkaTables tables = new KafkaTables(broker, CONNECTOR);

    @Test
    void anUpdateWithoutItsBeforeImageFailsTheJobOrIsSkippedWithIgnoreParseErrors() {
        long start = System.nanoTime();
        broker.createTopic(tables.orders, 1, Map.of());
        broker.createTopic(tables.enrichedLeft, 1, Map.of());
        broker.createTopic(tables.enrichedInner, 1, Map.of());
        postgres.psql(
                "CREATE TABLE "
                        + TABLE
                        + " (customer_id INT PRIMARY KEY, tier TEXT NOT NULL, country TEXT NOT"
                        + " NULL);\n"
                        + "INSERT INTO "
                        + TABLE
                        + " VALUES (1, 'gold', 'US'), (2, 'silver', 'UK'), (3, 'bronze', 'FR');\n");
        connect.addConnector(
                CONNECTOR, LocalPostgresAndConnect.debeziumConnector(CONNECTOR, TABLE));
        broker.readCommitted(TOPIC, 3, QUIET, TIMEOUT);

        // ---- the format's defaults: the job fails on the update ----
        ClusterJob strict = submit("strict", "", tables.enrichedLeft);
        strict.awaitMetric(CURRENT_PHASE, TIMEOUT, phase -> phase == 1);
        postgres.psql(
                "UPDATE "
                        + TABLE
                        + " SET tier = 'platinum' WHERE customer_id = 1;\n"
                        + "DELETE FROM "
                        + TABLE
                        + " WHERE customer_id = 2;\n"
                        + "INSERT INTO "
                        + TABLE
                        + " VALUES (4, 'gold', 'DE');\n");
        String failure =
                Wait.until(
                        TIMEOUT,
                        "the failure on the record in the job's exception history",
                        () -> failureOnTheRecord(strict),
                        stacktrace -> !stacktrace.isEmpty());
        assertThat(failure)
                .contains(DESERIALIZATION_FAILURE)
                .contains("Corrupt Debezium JSON message '{\"before\":null,")
                .contains(
                        "The \"before\" field of UPDATE message is null, if you are using Debezium"
                                + " Postgres Connector, please check the Postgres table has been"
                                + " set REPLICA IDENTITY to FULL level.");
        // The library's reader of the build side (load-completed-on-caught-up) names the split,
        // and where it stands: the failed record is the first committed one from there.
        Matcher split = FAILED_SPLIT.matcher(failure);
        assertThat(split.find()).as("the failure names the split: %s", failure).isTrue();
        assertThat(split.group(1)).isEqualTo(TOPIC + "-0");
        long position = Long.parseLong(split.group(2));
        ConsumerRecord<String, String> failed =
                broker.readCommittedFrom(TOPIC, Map.of(0, position)).get(0);
        assertThat(failed.value())
                .as("the record at or after offset %d", position)
                .startsWith("{\"before\":null,")
                .contains("\"op\":\"u\"");
        boolean namesTheTopic = failure.contains(TOPIC);
        boolean namesTheTable = failure.contains("\"table\":\"" + TABLE + "\"");
        cluster.rest().cancel(strict.id());

        // ---- ignore-parse-errors: the update is skipped, the delete and the insert are not ----
        ClusterJob lenient =
                submit(
                        "lenient",
                        ", 'debezium-json.ignore-parse-errors' = 'true'",
                        tables.enrichedInner);
        lenient.awaitMetric(CURRENT_PHASE, TIMEOUT, phase -> phase == 1);
        double applied = lenient.metricValue(NUM_BUILD_SIDE_CHANGES_APPLIED);
        Instant now = Instant.now();
        broker.send(
                List.of(
                        tables.order(0, 1, 1, now),
                        tables.order(0, 2, 2, now),
                        tables.order(0, 3, 4, now)));
        List<String> rows =
                broker.readCommitted(tables.enrichedInner, 3, QUIET, TIMEOUT).stream()
                        .map(ConsumerRecord::value)
                        .map(KafkaTables::enrichedRow)
                        .sorted()
                        .collect(Collectors.toList());
        assertThat(rows)
                .as("customer 1 as before its update, customer 2 deleted, customer 4 inserted")
                .containsExactly("1,1,gold,US", "2,2,null,null", "3,4,gold,DE");
        assertThat(lenient.state()).isEqualTo("RUNNING");
        System.out.printf(
                "[cdc] an update without its before image (replica identity DEFAULT): with the"
                        + " format's defaults the job fails (the message names the topic: %s,"
                        + " the partition and the failed record's offset: %s-%d at offset %d,"
                        + " names the table in the change's source: %s); with"
                        + " debezium-json.ignore-parse-errors the update is skipped, the job runs,"
                        + " %.0f changes applied of 6 (3 snapshot rows, the update, a delete, an"
                        + " insert), later orders see the customer before its update; %.1f s%n",
                namesTheTopic,
                failed.topic(),
                failed.partition(),
                failed.offset(),
                namesTheTable,
                applied,
                (System.nanoTime() - start) / 1e9);
    }

    /**
     * The stack trace of the failure on the record the format cannot read, from the job's exception
     * history, or "" before there is one. The job restarts and fails on it again, and a failure
     * that comes with it (an event of the source's coordinator to the failed task is lost, which
     * fails the task again) can be the latest entry: every entry is searched.
     */
    private String failureOnTheRecord(ClusterJob job) {
        for (String stacktrace : job.failureStackTraces()) {
            if (stacktrace.contains(DESERIALIZATION_FAILURE)) {
                return stacktrace;
            }
        }
        return "";
    }

    /**
     * Submits the LEFT JOIN of the orders with the table, read from Debezium's topic with the
     * customers options, into the sink topic.
     */
    private ClusterJob submit(String name, String customersOptions, String sinkTopic) {
        return ClusterJob.submittedWithSqlClient(
                cluster,
                "bad-input-" + name,
                "SET 'table.exec.lateral-snapshot.load-completed-on-caught-up' = 'true';\n"
                        + tables.debeziumDdl(TOPIC, customersOptions, sinkTopic, ""),
                insertFrom("orders", "customers", "LEFT JOIN", "enriched"));
    }
}
