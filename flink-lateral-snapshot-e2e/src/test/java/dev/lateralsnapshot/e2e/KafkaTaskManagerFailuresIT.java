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

import dev.lateralsnapshot.testutils.tables.VersionedBuildSide;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static dev.lateralsnapshot.e2e.KafkaTables.exactlyOnce;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_PROBE_SIDE_RECORDS_BUFFERED;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.KEYS;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.OUTPUT_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.VERSIONS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.assertExactlyOnceAndNoHalfAppliedUpdate;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.flipFile;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.query;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.versionFile;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.watermarkAfter;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactly once between Kafka topics across real process failures: TaskManagers that run the join
 * are killed with SIGKILL three times in the join phase, and a new one is started in place of each,
 * while the job reads its orders and a CDC changelog (debezium-json) from Kafka and writes to a
 * Kafka topic with {@code sink.delivery-guarantee = exactly-once}. Read back with {@code
 * isolation.level = read_committed}, the output must hold every order exactly once, and no row a
 * half-applied update pair: the build side is a {@link VersionedBuildSide}, on which one would
 * show, and each of its updates reaches the join as a -U and a +U.
 *
 * <p>The broker and the cluster are those of the other Kafka tests ({@link LocalKafkaAndFlink}),
 * whose TaskManagers notice a dead one within seconds.
 *
 * <p>The sources keep their Kafka offsets in their checkpoints, so a restored job reads on where
 * the checkpoint was taken; the sink commits its transaction with each checkpoint, and a restored
 * job aborts the transactions its predecessor left open.
 */
@ExtendWith(LocalKafkaAndFlink.class)
class KafkaTaskManagerFailuresIT {

    private static final int VERSIONS = 6;
    private static final int ORDERS_PER_BATCH = 150;

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** How long a restored source may take to read again what its checkpoint had not yet seen. */
    private static final Duration SETTLE_AFTER_RESTART = Duration.ofSeconds(2);

    private LocalKafkaBroker broker;
    private LocalFlinkCluster cluster;
    private String orders;
    private String versions;
    private String committed;
    private long ordersWritten;
    private TaskManagerKills kills;

    @BeforeEach
    void createTopics() {
        broker = LocalKafkaAndFlink.broker();
        cluster = LocalKafkaAndFlink.cluster();
        kills = new TaskManagerKills(cluster, SETTLE_AFTER_RESTART);
        orders = "failures-orders";
        versions = "failures-versions";
        committed = "failures-committed";
        broker.createTopic(orders, 2, Map.of());
        // One partition: a CDC source keeps every change of a key in one partition, in order.
        broker.createTopic(versions, 1, Map.of());
        broker.createTopic(committed, 2, Map.of());
    }

    @Test
    void emitsEveryOrderExactlyOnceAndNoHalfAppliedUpdateWhenTaskManagersAreKilled() {
        long start = System.nanoTime();
        ClusterJob job = submit();
        assertThat(job.joinVertex().path("parallelism").asInt()).isEqualTo(2);

        // ---- load phase: orders are buffered, version 0 is loaded, then the flip ----
        writeVersion(versionFile(0));
        writeOrders();
        Wait.until(
                TIMEOUT,
                ORDERS_PER_BATCH + " orders buffered by the join",
                () -> job.metric(NUM_PROBE_SIDE_RECORDS_BUFFERED),
                values ->
                        values.stream().mapToDouble(Double::doubleValue).sum() == ORDERS_PER_BATCH);
        long lastBufferedOrder = ordersWritten;
        writeVersion(flipFile());
        job.awaitMetricOnEverySubtask(CURRENT_PHASE, TIMEOUT, phase -> phase == 1.0);
        // From here on no restore goes back to the load phase.
        job.awaitCheckpointTriggeredFromNow(TIMEOUT);

        // ---- join phase: a new version of every key at a time, three TaskManagers die ----
        kills.joinPhaseWithKills(
                job,
                VERSIONS,
                version -> writeVersion(versionFile(version)),
                this::writeOrders,
                version -> awaitApplied(job, version));
        awaitApplied(job, VERSIONS);

        // The last version is applied and no TaskManager died since: new orders all see it.
        long lastOrderBeforeTheLastVersion = ordersWritten;
        writeOrders();
        long expected = ordersWritten;
        // Committed with the next checkpoint; a duplicate would be committed with a later one.
        job.awaitCheckpointTriggeredFromNow(TIMEOUT);
        List<String> lines =
                broker.readCommitted(committed, expected, Duration.ofSeconds(3), TIMEOUT).stream()
                        .map(ConsumerRecord::value)
                        .collect(Collectors.toList());
        job.awaitCheckpointTriggeredFromNow(TIMEOUT);
        List<String> afterOneMoreCheckpoint =
                broker.readCommitted(committed, expected, Duration.ofSeconds(1), TIMEOUT).stream()
                        .map(ConsumerRecord::value)
                        .collect(Collectors.toList());
        assertThat(afterOneMoreCheckpoint).as("nothing committed late").hasSameSizeAs(lines);
        assertThat(job.restarts())
                .as("at least one restart per killed TaskManager")
                .isGreaterThanOrEqualTo(kills.kills());

        int rows =
                assertExactlyOnceAndNoHalfAppliedUpdate(
                        lines,
                        expected,
                        lastBufferedOrder,
                        lastOrderBeforeTheLastVersion,
                        VERSIONS);
        System.out.printf(
                "[kafka] TaskManagers killed, Kafka to Kafka with an exactly-once sink: %d orders"
                        + " in, %d rows committed (read_committed), 0 duplicates, 0 missing, %d"
                        + " TaskManagers killed in the join phase, %d restarts, %d checkpoints"
                        + " completed, %d build versions, %.1f s%n",
                expected,
                rows,
                kills.kills(),
                job.restarts(),
                job.completedCheckpoints(),
                VERSIONS,
                (System.nanoTime() - start) / 1e9);
    }

    // ---- the job ----

    /**
     * Submits the job through the SQL Client: settings and tables in the init script ({@code -i}),
     * the INSERT in the statement file ({@code -f}).
     */
    private ClusterJob submit() {
        String servers = "'properties.bootstrap.servers' = '" + broker.bootstrapServers() + "'";
        String ddl =
                String.join(
                        "\n",
                        "SET 'parallelism.default' = '2';",
                        "SET 'execution.checkpointing.interval' = '1 s';",
                        "SET 'table.local-time-zone' = 'UTC';",
                        // The source subtask without a partition of the versions topic sends no
                        // watermark; idle, it holds none back.
                        "SET 'table.exec.source.idle-timeout' = '500 ms';",
                        createTable(
                                        "orders",
                                        "order_id BIGINT, key_id INT",
                                        "'connector' = 'kafka', 'topic' = '"
                                                + orders
                                                + "', "
                                                + servers
                                                + ", 'scan.startup.mode' = 'earliest-offset',"
                                                + " 'format' = 'json'")
                                + ";",
                        createTable(
                                        "versions",
                                        VERSIONS_COLUMNS,
                                        "'connector' = 'kafka', 'topic' = '"
                                                + versions
                                                + "', "
                                                + servers
                                                + ", 'scan.startup.mode' = 'earliest-offset',"
                                                + " 'format' = 'debezium-json'")
                                + ";",
                        createTable(
                                        "committed",
                                        OUTPUT_COLUMNS,
                                        "'connector' = 'kafka', 'topic' = '"
                                                + committed
                                                + "', "
                                                + servers
                                                + ", 'format' = 'csv'"
                                                + exactlyOnce(committed))
                                + ";",
                        "");
        String insert = query("orders AS o", "committed") + ";\n";
        try {
            Path init = Files.writeString(cluster.runDirectory().resolve("failures-ddl.sql"), ddl);
            Path file =
                    Files.writeString(
                            cluster.runDirectory().resolve("failures-insert.sql"), insert);
            return ClusterJob.submittedBySqlClient(
                    cluster.rest(), cluster.sqlClientWithFile(init, file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until the build watermark has passed a version on every join subtask. */
    private static void awaitApplied(ClusterJob job, int version) {
        double watermark = watermarkAfter(version);
        job.awaitMetricOnEverySubtask(
                CURRENT_BUILD_SIDE_WATERMARK, TIMEOUT, current -> current >= watermark);
    }

    // ---- input records ----

    /** Writes the next orders: ids go on from the last ones, keys are id modulo KEYS. */
    private void writeOrders() {
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        long first = ordersWritten + 1;
        for (long order = first; order < first + ORDERS_PER_BATCH; order++) {
            records.add(
                    new ProducerRecord<>(
                            orders,
                            (int) (order % 2),
                            null,
                            "{\"order_id\":" + order + ",\"key_id\":" + order % KEYS + "}"));
        }
        ordersWritten += ORDERS_PER_BATCH;
        broker.send(records);
    }

    /** Writes the changes of a version, in order, into the one partition of the versions topic. */
    private void writeVersion(List<String> changes) {
        broker.send(
                changes.stream()
                        .map(
                                change ->
                                        new ProducerRecord<String, String>(
                                                versions, 0, null, change))
                        .collect(Collectors.toList()));
    }
}
