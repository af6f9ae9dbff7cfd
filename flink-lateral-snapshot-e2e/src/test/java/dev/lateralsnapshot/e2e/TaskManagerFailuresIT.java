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

import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.tables.VersionedBuildSide;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_PROBE_SIDE_RECORDS_BUFFERED;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.KEYS;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.OUTPUT_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.VERSIONS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.assertExactlyOnceAndNoHalfAppliedUpdate;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.flipFile;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.outputOptions;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.query;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.versionFile;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.watermarkAfter;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactly once across real process failures (docs/reliability.md, "TaskManagers killed"): a
 * TaskManager that runs the join is killed with SIGKILL once in the load phase and three times in
 * the join phase, and a new one is started in its place each time, on a local cluster with RocksDB,
 * incremental checkpoints every second and the filesystem sink, which commits its files only with a
 * checkpoint. The committed output must hold every order exactly once, and no row may show a
 * half-applied update pair: the build side is a {@link VersionedBuildSide}, on which one would
 * show.
 *
 * <p>Orders and build changes are files that the test drops into directories which the job's
 * filesystem sources monitor; both sources keep in their checkpoints which files they have read and
 * how far, so a restored job reads on where the checkpoint was taken.
 *
 * <p>Build files are written one after the other, each once the previous one is applied and a
 * checkpoint holds it: the filesystem source reads files on two subtasks, and two files that change
 * one key, read at once, reach the join in no defined order (a CDC source keeps a key in one
 * partition).
 */
class TaskManagerFailuresIT {

    private static final int VERSIONS = 6;
    private static final int ORDERS_PER_FILE = 150;

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** How often the job's sources look for the files the test drops. */
    private static final String MONITORED = ", 'source.monitor-interval' = '200 ms'";

    /** How long a restored filesystem source may take to read again a file it had not finished. */
    private static final Duration SETTLE_AFTER_RESTART = Duration.ofSeconds(2);

    private LocalFlinkCluster cluster;
    private Path ordersDirectory;
    private Path buildDirectory;
    private Path outputDirectory;
    private long ordersWritten;
    private TaskManagerKills kills;

    @BeforeEach
    void startCluster() throws IOException {
        cluster = LocalFlinkCluster.start(TaskManagerKills.CLUSTER_OPTIONS);
        kills = new TaskManagerKills(cluster, SETTLE_AFTER_RESTART);
        ordersDirectory = Files.createDirectories(cluster.runDirectory().resolve("orders"));
        buildDirectory = Files.createDirectories(cluster.runDirectory().resolve("versions"));
        outputDirectory = Files.createDirectories(cluster.runDirectory().resolve("committed"));
    }

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void emitsEveryOrderExactlyOnceAndNoHalfAppliedUpdateWhenTaskManagersAreKilled() {
        long start = System.nanoTime();
        ClusterJob job = submit();
        assertThat(job.joinVertex().path("parallelism").asInt()).isEqualTo(2);

        // ---- load phase: orders are buffered, version 0 is loaded; a TaskManager dies ----
        writeBuildFile(0);
        writeOrders();
        awaitBuffered(job, ORDERS_PER_FILE);
        job.awaitCheckpointTriggeredFromNow(TIMEOUT);
        kills.killJoinTaskManager(job);
        assertThat(job.metric(CURRENT_PHASE)).as("restored into the load phase").containsOnly(0.0);
        writeOrders();
        awaitBuffered(job, ORDERS_PER_FILE);
        long lastBufferedOrder = ordersWritten;

        Directories.writeAtomically(buildDirectory, "flip.json", flipFile());
        job.awaitMetricOnEverySubtask(CURRENT_PHASE, TIMEOUT, phase -> phase == 1.0);
        // From here on no restore goes back to the load phase, or reads flip.json again.
        job.awaitCheckpointTriggeredFromNow(TIMEOUT);

        // ---- join phase: a new version of every key per file, three TaskManagers die ----
        kills.joinPhaseWithKills(
                job,
                VERSIONS,
                this::writeBuildFile,
                this::writeOrders,
                version -> awaitApplied(job, version));

        // The last version is applied and no TaskManager died since: new orders all see it.
        long lastOrderBeforeTheLastVersion = ordersWritten;
        writeOrders();
        long expected = ordersWritten;
        job.await(
                TIMEOUT,
                expected + " committed output rows",
                () -> Directories.committedLines(outputDirectory).size(),
                committed -> committed >= expected);
        // One more checkpoint: a duplicate still on its way would be committed by it.
        job.awaitCheckpointTriggeredFromNow(TIMEOUT);
        // A restart can also fail, when the JobManager tries the dead TaskManager's slots first.
        assertThat(job.restarts())
                .as("at least one restart per killed TaskManager")
                .isGreaterThanOrEqualTo(kills.kills());
        long checkpoints = job.completedCheckpoints();

        int committed =
                assertExactlyOnceAndNoHalfAppliedUpdate(
                        Directories.committedLines(outputDirectory),
                        expected,
                        lastBufferedOrder,
                        lastOrderBeforeTheLastVersion,
                        VERSIONS);
        System.out.printf(
                "[reliability] TaskManagers killed on a local cluster (RocksDB): %d orders in,"
                        + " %d rows committed, %d TaskManagers killed (1 load phase, 3 join"
                        + " phase), %d restarts, %d checkpoints completed, %d build versions,"
                        + " %.1f s%n",
                expected,
                committed,
                kills.kills(),
                job.restarts(),
                checkpoints,
                VERSIONS,
                (System.nanoTime() - start) / 1e9);
    }

    // ---- the job ----

    /**
     * Submits the job through the SQL Client: the settings and tables in the init script ({@code
     * -i}), the INSERT in the statement file ({@code -f}).
     */
    private ClusterJob submit() {
        String ddl =
                String.join(
                        "\n",
                        "SET 'parallelism.default' = '2';",
                        "SET 'state.backend.type' = 'rocksdb';",
                        "SET 'execution.checkpointing.incremental' = 'true';",
                        "SET 'execution.checkpointing.interval' = '1 s';",
                        // Flink 2.3 can leave a checkpoint waiting for an operator event that a
                        // failover lost: a split that a source assigns while a checkpoint is still
                        // being triggered on the dying TaskManager is held back until that
                        // checkpoint's barriers are out, and the restart replaces the subtask's
                        // gateway without sending or failing it. The next checkpoint waits for the
                        // event until it times out (10 minutes by default), and none starts
                        // meanwhile. A short timeout aborts it, and tolerating the abort spares
                        // the job a restart; the checkpoint after it completes.
                        "SET 'execution.checkpointing.timeout' = '10 s';",
                        "SET 'execution.checkpointing.tolerable-failed-checkpoints' = '3';",
                        "SET 'table.local-time-zone' = 'UTC';",
                        // A source subtask without a file sends no watermark; idle, it holds none.
                        "SET 'table.exec.source.idle-timeout' = '500 ms';",
                        createTable(
                                        "orders",
                                        "order_id BIGINT, key_id INT",
                                        Directories.filesystem(ordersDirectory, "csv") + MONITORED)
                                + ";",
                        createTable(
                                        "versions",
                                        VERSIONS_COLUMNS,
                                        Directories.filesystem(buildDirectory, "debezium-json")
                                                + MONITORED)
                                + ";",
                        createTable("committed", OUTPUT_COLUMNS, outputOptions(outputDirectory))
                                + ";",
                        "");
        String insert = query("orders AS o", "committed") + ";\n";
        try {
            Path init = Files.writeString(cluster.runDirectory().resolve("ddl.sql"), ddl);
            Path file = Files.writeString(cluster.runDirectory().resolve("insert.sql"), insert);
            return ClusterJob.submittedBySqlClient(
                    cluster.rest(), cluster.sqlClientWithFile(init, file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- waiting ----

    /** Waits until the join subtasks together hold the given number of buffered orders. */
    private static void awaitBuffered(ClusterJob job, long buffered) {
        job.await(
                TIMEOUT,
                buffered + " orders buffered by the join",
                () -> job.metric(NUM_PROBE_SIDE_RECORDS_BUFFERED),
                values -> values.stream().mapToDouble(Double::doubleValue).sum() == buffered);
    }

    /** Waits until the build watermark has passed a version's file on every join subtask. */
    private static void awaitApplied(ClusterJob job, int version) {
        double watermark = watermarkAfter(version);
        job.awaitMetricOnEverySubtask(
                CURRENT_BUILD_SIDE_WATERMARK, TIMEOUT, current -> current >= watermark);
    }

    // ---- input files ----

    /** Writes the next file of orders: ids go on from the last file, keys are id modulo KEYS. */
    private void writeOrders() {
        List<String> lines = new ArrayList<>();
        long first = ordersWritten + 1;
        for (long order = first; order < first + ORDERS_PER_FILE; order++) {
            lines.add(order + "," + order % KEYS);
        }
        ordersWritten += ORDERS_PER_FILE;
        Directories.writeAtomically(ordersDirectory, "orders-" + first + ".csv", lines);
    }

    private void writeBuildFile(int version) {
        Directories.writeAtomically(buildDirectory, "v" + version + ".json", versionFile(version));
    }
}
