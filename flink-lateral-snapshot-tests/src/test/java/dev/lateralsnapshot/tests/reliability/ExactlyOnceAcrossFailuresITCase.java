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

package dev.lateralsnapshot.tests.reliability;

import dev.lateralsnapshot.tests.runtime.Await;
import dev.lateralsnapshot.tests.runtime.MiniClusterTestBase;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.connectors.SequenceGate;
import dev.lateralsnapshot.testutils.connectors.SequenceTableFactory;
import dev.lateralsnapshot.testutils.environments.StateBackendKind;
import dev.lateralsnapshot.testutils.tables.VersionedBuildSide;

import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;

import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ORDERS_TIME_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.KEYS;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.OUTPUT_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.VERSIONS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.assertExactlyOnceAndNoHalfAppliedUpdate;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.flipFile;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.outputOptions;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.versionFile;
import static dev.lateralsnapshot.testutils.tables.VersionedBuildSide.watermarkAfter;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactly once across failures (docs/reliability.md, "Injected failures"): a job with checkpoints
 * every second, a replayable probe source, a debezium-json build directory and the filesystem sink,
 * which commits its files only with a checkpoint, is failed once in the load phase and three times
 * in the join phase. The committed output must hold every probe row exactly once, and no row may
 * show a half-applied update pair: the build side is a {@link VersionedBuildSide}, on which one
 * would show.
 *
 * <p>The build files are written one after the other, each only once the previous one has been read
 * and a checkpoint taken after it: the filesystem source reads files in parallel, and changes of
 * one key read by two subtasks reach the join in no defined order. After a restart the test waits a
 * moment longer, so that a file the restored source reads again is done before the next.
 */
class ExactlyOnceAcrossFailuresITCase extends MiniClusterTestBase {

    private static final int SPLITS = 4;
    private static final int VERSIONS = 6;
    private static final long ORDERS_PER_STEP = 150;

    /** How long a restored filesystem source may take to read again a file it had not finished. */
    private static final long SETTLE_AFTER_RESTART_MILLIS = 1000;

    private static final String QUERY =
            VersionedBuildSide.query(
                    "(SELECT pass_or_fail(order_id) AS order_id, key_id, ts FROM orders) AS o",
                    "committed");

    @ParameterizedTest
    @EnumSource(StateBackendKind.class)
    void emitsEveryProbeRowExactlyOnceAndNoHalfAppliedUpdate(StateBackendKind backend)
            throws Exception {
        long start = System.nanoTime();
        Path buildDirectory = Files.createDirectory(directory.resolve("build"));
        Path outputDirectory = Files.createDirectory(directory.resolve("output"));
        try (SequenceGate orders = SequenceGate.open(SPLITS);
                FailureTrigger trigger = FailureTrigger.open()) {
            TableEnvironment env = environment(backend);
            env.createTemporarySystemFunction("pass_or_fail", trigger.function());
            createTables(env, orders, buildDirectory, outputDirectory);

            long lastBufferedOrder;
            long lastOrderBeforeTheLastVersion;
            int failures = 0;
            long checkpoints;
            try (RunningJob job = RunningJob.of(cluster(), env.executeSql(QUERY))) {
                assertThat(job.stateBackendName()).isEqualTo(backend.backendName);

                // ---- load phase: orders are buffered, version 0 is loaded ----
                Directories.writeAtomically(buildDirectory, "v0.json", versionFile(0));
                orders.release(ORDERS_PER_STEP);
                awaitBuffered(job, orders);

                trigger.arm();
                orders.release(orders.released() + ORDERS_PER_STEP);
                awaitRestart(job, trigger, ++failures);
                awaitBuffered(job, orders);
                lastBufferedOrder = orders.released();

                Directories.writeAtomically(buildDirectory, "flip.json", flipFile());
                job.awaitMetrics("every subtask flips", m -> m.allEqual(CURRENT_PHASE, 1));
                // From here on no restore goes back to the load phase, or reads flip.json again.
                job.awaitCheckpointTriggeredFromNow();

                // ---- join phase: a new version of every key per file, three failures ----
                for (int version = 1; version <= VERSIONS; version++) {
                    String file = "v" + version + ".json";
                    switch (version) {
                        case 1:
                            // Fails before the file is read: the restored source reads it.
                            trigger.arm();
                            orders.release(orders.released() + ORDERS_PER_STEP);
                            Directories.writeAtomically(buildDirectory, file, versionFile(version));
                            awaitRestart(job, trigger, ++failures);
                            break;
                        case 3:
                            // Fails around the time the file is read.
                            Directories.writeAtomically(buildDirectory, file, versionFile(version));
                            trigger.arm();
                            orders.release(orders.released() + ORDERS_PER_STEP);
                            awaitRestart(job, trigger, ++failures);
                            break;
                        case 5:
                            // Fails after the file is applied, maybe before a checkpoint has it.
                            Directories.writeAtomically(buildDirectory, file, versionFile(version));
                            orders.release(orders.released() + ORDERS_PER_STEP);
                            awaitApplied(job, version);
                            trigger.arm();
                            orders.release(orders.released() + ORDERS_PER_STEP);
                            awaitRestart(job, trigger, ++failures);
                            break;
                        default:
                            Directories.writeAtomically(buildDirectory, file, versionFile(version));
                            orders.release(orders.released() + ORDERS_PER_STEP);
                            awaitApplied(job, version);
                            job.awaitCheckpointTriggeredFromNow();
                    }
                }

                // The last version is applied (no failure since): later orders must all see it.
                lastOrderBeforeTheLastVersion = orders.released();
                orders.release(lastOrderBeforeTheLastVersion + ORDERS_PER_STEP);
                long expected = orders.released();
                Await.until(
                        expected + " committed output rows",
                        () -> Directories.committedLines(outputDirectory).size() >= expected,
                        () -> Directories.committedLines(outputDirectory).size() + " rows");
                // One more checkpoint: a duplicate still on its way would be committed by it.
                job.awaitCheckpointTriggeredFromNow();
                assertThat(job.failures()).isEqualTo(failures);
                checkpoints = job.completedCheckpoints();
            }

            long expected = orders.released();
            int committed =
                    assertExactlyOnceAndNoHalfAppliedUpdate(
                            Directories.committedLines(outputDirectory),
                            expected,
                            lastBufferedOrder,
                            lastOrderBeforeTheLastVersion,
                            VERSIONS);
            assertThat(trigger.fired()).isEqualTo(4);

            System.out.printf(
                    "[reliability] exactly once on %s: %d probe rows in, %d rows committed,"
                            + " %d failures injected (1 load phase, 3 join phase), %d checkpoints"
                            + " completed, %d build versions, %.1f s%n",
                    backend,
                    expected,
                    committed,
                    trigger.fired(),
                    checkpoints,
                    VERSIONS,
                    (System.nanoTime() - start) / 1e9);
        }
    }

    // ---- the job ----

    private TableEnvironment environment(StateBackendKind backend) {
        TableEnvironment env = streamingEnvironment(backend, 2);
        env.getConfig().set("execution.checkpointing.incremental", "true");
        env.getConfig().set("execution.checkpointing.interval", "1 s");
        env.getConfig()
                .set(
                        "execution.checkpointing.dir",
                        directory.resolve("checkpoints").toUri().toString());
        env.getConfig().set("restart-strategy.type", "fixed-delay");
        env.getConfig().set("restart-strategy.fixed-delay.attempts", "10");
        env.getConfig().set("restart-strategy.fixed-delay.delay", "100 ms");
        return env;
    }

    private static void createTables(
            TableEnvironment env, SequenceGate orders, Path buildDirectory, Path outputDirectory) {
        env.executeSql(
                createTable(
                        "orders",
                        "order_id BIGINT, key_id AS CAST(order_id % "
                                + KEYS
                                + " AS INT), "
                                + ORDERS_TIME_COLUMNS,
                        SequenceTableFactory.options(orders)));
        env.executeSql(
                createTable(
                        "versions",
                        VERSIONS_COLUMNS,
                        Directories.filesystem(buildDirectory, "debezium-json")
                                + ", 'source.monitor-interval' = '100 ms'"));
        env.executeSql(createTable("committed", OUTPUT_COLUMNS, outputOptions(outputDirectory)));
    }

    // ---- waiting ----

    /** Waits until the join holds every released order: emitted, and a checkpoint after them. */
    private static void awaitBuffered(RunningJob job, SequenceGate orders) throws Exception {
        Await.until(
                "the source emits order " + orders.released(),
                orders::allReleasedEmitted,
                () -> orders.released() + " released");
        job.awaitCheckpointTriggeredFromNow();
    }

    private static void awaitRestart(RunningJob job, FailureTrigger trigger, int failures)
            throws Exception {
        Await.until(
                "failure " + failures + " is injected",
                () -> trigger.fired() == failures,
                trigger::fired);
        Await.until(
                "the job has restarted " + failures + " times",
                () -> job.failures() == failures,
                job::toString);
        job.awaitAllTasksRunning();
        Thread.sleep(SETTLE_AFTER_RESTART_MILLIS);
        job.awaitCheckpointTriggeredFromNow();
    }

    /** Waits until the build watermark has passed a version's file on every join subtask. */
    private static void awaitApplied(RunningJob job, int version) throws Exception {
        long watermark = watermarkAfter(version);
        job.awaitMetrics(
                "version " + version + " is applied",
                m ->
                        !m.subtasks().isEmpty()
                                && m.longs(CURRENT_BUILD_SIDE_WATERMARK).values().stream()
                                        .allMatch(current -> current >= watermark));
    }
}
