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

package dev.lateralsnapshot.benchmark.enrichment;

import dev.lateralsnapshot.benchmark.enrichment.RunSpec.Backend;
import dev.lateralsnapshot.benchmark.enrichment.RunSpec.Mode;
import dev.lateralsnapshot.config.LateralSnapshotOptions;
import dev.lateralsnapshot.planner.delegation.LateralSnapshotPlannerFactory;
import dev.lateralsnapshot.testutils.environments.PlannerFactoryEnvironments;
import dev.lateralsnapshot.testutils.metrics.JoinMetricsReporter;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.metrics.MetricNames;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.state.forst.ForStConfigurableOptions;
import org.apache.flink.state.forst.ForStOptions;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.planner.factories.TestValuesTableFactory;
import org.apache.flink.types.Row;

import org.HdrHistogram.Histogram;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.LOAD_COMPLETED_REASON;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.LOAD_PHASE_DURATION_MS;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_PROBE_SIDE_RECORDS_BUFFERED;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_PROBE_RECORDS;
import static org.apache.flink.table.api.Expressions.$;

/**
 * Runs benchmark jobs one after another on one embedded MiniCluster (one TaskManager, as many slots
 * as the largest parallelism of a run) and measures each.
 */
final class JobRunner implements AutoCloseable {

    static final long MIN_PROBE_ROWS = 10_000_000L;

    /** How long the sink stays quiet before a scale run counts its last row as arrived. */
    private static final long SCALE_QUIET_NANOS = 3_000_000_000L;

    /**
     * The same for a run without a count of rows to wait for, which has only the quiet to go by:
     * long enough that a checkpoint or a collection at its end does not end it early.
     */
    private static final long SCALE_QUIET_UNCOUNTED_NANOS = 10_000_000_000L;

    private final Settings settings;
    private final MiniCluster cluster;
    private final HeapWatch heap = new HeapWatch();
    private final Path work;
    private final Set<Contender> explained = new HashSet<>();
    private final Map<Integer, String> lookupData = new HashMap<>();
    private int runs;

    JobRunner(Settings settings, int slots) throws Exception {
        this.settings = settings;
        this.work = settings.workDir;
        Files.createDirectories(work);
        cluster = startCluster(settings, slots);
    }

    /**
     * The embedded cluster the benchmark's jobs run on: one TaskManager of the given slots, the
     * managed memory of the settings, and the join's metrics reported to {@link
     * JoinMetricsReporter}.
     */
    static MiniCluster startCluster(Settings settings, int slots) throws Exception {
        Configuration conf = new Configuration();
        conf.set(TaskManagerOptions.NUM_TASK_SLOTS, slots);
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse(settings.managedMemory));
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(WebOptions.CHECKPOINTS_HISTORY_SIZE, 100);
        JoinMetricsReporter.configure(conf);
        MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setConfiguration(conf)
                                .setNumTaskManagers(1)
                                .setNumSlotsPerTaskManager(slots)
                                .build());
        cluster.start();
        return cluster;
    }

    /**
     * What every benchmark job configures: a streaming job of the parallelism on the backend, with
     * periodic checkpoints into the directory.
     */
    static Configuration jobConfiguration(
            Backend backend, Path checkpoints, int intervalSeconds, int parallelism) {
        Configuration job = new Configuration();
        job.set(StateBackendOptions.STATE_BACKEND, backend.configValue);
        job.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        job.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        job.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(intervalSeconds));
        job.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
        job.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
        return job;
    }

    /**
     * A table environment in the planner of the drop-in jar, as in its SQL Client: it fuses the
     * projection after the join into the join's operator (docs/operations.md, "Check the
     * installation"), which a planner with LateralSnapshot.install does not.
     */
    static StreamTableEnvironment dropInPlannerEnvironment(StreamExecutionEnvironment env) {
        return PlannerFactoryEnvironments.create(
                LateralSnapshotPlannerFactory.class.getName(),
                () -> StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode()));
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }

    RunResult run(RunSpec spec, ProbeKeys keys) {
        String id = "r" + (++runs);
        // A scale run's probe backlog has one row per build key.
        long loadRows =
                spec.mode == Mode.SCALE
                        ? spec.scenario.buildKeys
                        : spec.mode.holdsLoadPhase() ? settings.loadRows : 0;
        long fixedRate =
                spec.mode == Mode.LATENCY
                        ? settings.fixedRate
                        : spec.contender.range() ? settings.rangeProbeRate : 0;
        BenchRun run =
                new BenchRun(
                        id,
                        spec.parallelism,
                        keys,
                        settings.probeRowsPerUpdate,
                        settings.probeLeadRows,
                        fixedRate,
                        loadRows,
                        settings.minLoadSeconds * 1000L,
                        spec.mode.loadEndsWithBacklog(),
                        spec.mode == Mode.SCALE,
                        spec.contender != Contender.P0 && spec.contender != Contender.P4);
        RunResult result = new RunResult(spec);
        JobID job = null;
        Path checkpoints = work.resolve("checkpoints-" + id);
        Path rocksDb = work.resolve("rocksdb-" + id);
        try {
            StreamGraph graph = graph(spec, run, checkpoints, rocksDb);
            quiesce();
            heap.reset();
            long submitMillis = System.currentTimeMillis();
            long submitNanos = System.nanoTime();
            job = cluster.submitJob(graph).get(60, TimeUnit.SECONDS).getJobID();
            String lastCheckpoint =
                    measure(spec, run, keys, job, result, submitMillis, submitNanos, rocksDb);
            if (lastCheckpoint != null) {
                stop(job);
                job = null;
                result.restoreSeconds = restoreSeconds(spec, run, checkpoints, lastCheckpoint);
            }
        } catch (Exception e) {
            result.error = rootMessage(e);
            System.err.println(spec.label() + " failed:");
            e.printStackTrace();
        } finally {
            run.stop = true;
            if (job != null) {
                stop(job);
            }
            run.close();
            deleteRecursively(checkpoints);
            deleteRecursively(rocksDb);
        }
        return result;
    }

    /** Cancels a job, waits for its end and forgets its metrics. */
    private void stop(JobID job) {
        try {
            cluster.cancelJob(job).get(60, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // finished or failed already
        }
        try {
            cluster.requestJobResult(job).get(120, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // reported below if the run has no other error
        }
        JoinMetricsReporter.forget(job);
    }

    /**
     * Seconds from submitting the run's job again, restored from its retained checkpoint, until
     * every subtask of its join has opened on the restored state: the restart that a failure after
     * the flip costs, scheduling and state download included. The restored job is cancelled then;
     * its sources start from the beginning, as the benchmark's carry no position.
     */
    private double restoreSeconds(RunSpec spec, BenchRun run, Path checkpoints, String checkpoint)
            throws Exception {
        Path restoredDb = work.resolve("rocksdb-restored-" + run.id);
        StreamGraph graph = graph(spec, run, checkpoints, restoredDb);
        graph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(checkpoint, false));
        quiesce();
        long start = System.nanoTime();
        JobID restored = cluster.submitJob(graph).get(60, TimeUnit.SECONDS).getJobID();
        try {
            long limitSeconds = settings.startTimeoutSeconds + scaleSlackSeconds(spec);
            List<Long> phases;
            while ((phases = joinMetric(restored, CURRENT_PHASE)).size() < spec.parallelism) {
                if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(limitSeconds)) {
                    throw new IllegalStateException(
                            "The join did not open within "
                                    + limitSeconds
                                    + " s of restoring from "
                                    + checkpoint);
                }
                JobStatus status = cluster.getJobStatus(restored).get(10, TimeUnit.SECONDS);
                if (status.isGloballyTerminalState()) {
                    throw new IllegalStateException(
                            "The restored job ended with " + status + ": " + failureOf(restored));
                }
                Thread.sleep(10);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            // The checkpoint was taken in the join phase: a join that opens in the load phase
            // has not restored it, and its time would be that of an empty start.
            if (phases.stream().anyMatch(phase -> phase != 1L)) {
                throw new IllegalStateException(
                        "The restored join opened in phases " + phases + ", not the join phase");
            }
            return seconds;
        } finally {
            stop(restored);
            deleteRecursively(restoredDb);
        }
    }

    private StreamGraph graph(RunSpec spec, BenchRun run, Path checkpoints, Path rocksDb)
            throws IOException {
        Configuration job =
                jobConfiguration(
                        spec.backend,
                        checkpoints,
                        settings.checkpointIntervalSeconds,
                        spec.parallelism);
        if (measuresRestore(spec)) {
            // The checkpoint at the end outlives the job, which the restore starts from.
            job.set(
                    CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                    ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        }
        if (spec.intervalDuringBacklogSeconds > 0) {
            job.set(
                    CheckpointingOptions.CHECKPOINTING_INTERVAL_DURING_BACKLOG,
                    Duration.ofSeconds(spec.intervalDuringBacklogSeconds));
        }
        if (spec.mode == Mode.SCALE && spec.backend.onDisk()) {
            // A job with tens of millions of keys checkpoints its store incrementally, as
            // docs/operations.md ("State backends") sets it: a full checkpoint writes the whole
            // state every time.
            job.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        }
        if (spec.mode == Mode.SCALE && spec.backend == Backend.ROCKSDB) {
            // A directory of the run's own, so that the size of RocksDB on disk can be measured.
            job.set(RocksDBOptions.LOCAL_DIRECTORIES, rocksDb.toAbsolutePath().toString());
        }
        if (spec.backend == Backend.FORST) {
            // ForSt's working files in the run's own directory on the local file system, its
            // primary storage included, which otherwise shares the checkpoint directory.
            job.set(ForStOptions.LOCAL_DIRECTORIES, rocksDb.toAbsolutePath().toString());
            job.set(ForStOptions.PRIMARY_DIRECTORY, "local");
        }
        if (settings.bloomFilter) {
            job.set(RocksDBConfigurableOptions.USE_BLOOM_FILTER, true);
            job.set(ForStConfigurableOptions.USE_BLOOM_FILTER, true);
        }
        job.set(PipelineOptions.OBJECT_REUSE, settings.objectReuse);
        if (spec.mode == Mode.LATENCY) {
            job.set(
                    ExecutionOptions.BUFFER_TIMEOUT,
                    Duration.ofMillis(settings.latencyBufferTimeoutMillis));
        }
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(job);
        StreamTableEnvironment tEnv =
                spec.contender.isSnapshot()
                        ? dropInPlannerEnvironment(env)
                        : StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        if (spec.contender == Contender.P0) {
            tEnv.getConfig().set("table.exec.sink.keyed-shuffle", "FORCE");
        }
        if (spec.mode.loadEndsWithBacklog() && spec.contender.isSnapshot()) {
            tEnv.getConfig().set(LateralSnapshotOptions.LOAD_COMPLETED_ON_CAUGHT_UP, true);
        }
        if (spec.contender == Contender.P5SN) {
            tEnv.getConfig().set("table.exec.source.cdc-events-duplicate", "true");
        }
        if (spec.contender.broadcast()) {
            tEnv.getConfig()
                    .set(
                            LateralSnapshotOptions.BUILD_DISTRIBUTION,
                            LateralSnapshotOptions.BuildDistribution.BROADCAST.value());
        }
        String lookup =
                spec.contender == Contender.P4
                        ? lookupData.computeIfAbsent(run.buildKeys, JobRunner::registerLookupData)
                        : "none";
        for (String ddl : Contender.ddl(run.id, lookup)) {
            tEnv.executeSql(ddl);
        }
        if (spec.contender == Contender.P1) {
            tEnv.createTemporarySystemFunction(
                    "Rates", tEnv.from("rates_pt").createTemporalTableFunction($("pt"), $("k")));
        }
        String insert = spec.contender.insert();
        boolean explainGraph = explained.add(spec.contender);
        if (explainGraph) {
            Path plans = work.resolve("plans");
            Files.createDirectories(plans);
            Files.writeString(
                    plans.resolve(spec.contender.name() + ".txt"),
                    insert + "\n\n" + tEnv.explainSql(insert),
                    StandardCharsets.UTF_8);
        }
        StreamStatementSet set = tEnv.createStatementSet();
        set.addInsertSql(insert);
        set.attachAsDataStream();
        StreamGraph graph = env.getStreamGraph();
        if (explainGraph) {
            StringBuilder edges = new StringBuilder("\n== Stream graph edges ==\n");
            for (org.apache.flink.streaming.api.graph.StreamNode node : graph.getStreamNodes()) {
                for (org.apache.flink.streaming.api.graph.StreamEdge edge : node.getOutEdges()) {
                    edges.append(
                            String.format(
                                    "%s -> %s: %s%n",
                                    graph.getStreamNode(edge.getSourceId()).getOperatorName(),
                                    graph.getStreamNode(edge.getTargetId()).getOperatorName(),
                                    edge.getPartitioner()));
                }
            }
            Files.writeString(
                    work.resolve("plans").resolve(spec.contender.name() + ".txt"),
                    edges.toString(),
                    StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.APPEND);
        }
        graph.setJobName(spec.label());
        graph.setJobId(new JobID());
        return graph;
    }

    private static String registerLookupData(int buildKeys) {
        List<Row> rows = new ArrayList<>(buildKeys);
        long base = System.currentTimeMillis() - 86_400_000L;
        for (long k = 0; k < buildKeys; k++) {
            rows.add(
                    Row.of(
                            k,
                            BuildSource.rate(k, 0),
                            BuildSource.name(k, 0),
                            Instant.ofEpochMilli(base + k)));
        }
        return TestValuesTableFactory.registerData(rows);
    }

    private static Map<Integer, Long> joinMetricBySubtask(JobID job, String name) {
        Map<Integer, Long> values = new HashMap<>();
        JoinMetricsReporter.current(job, name)
                .forEach((subtask, value) -> values.put(subtask, ((Number) value).longValue()));
        return values;
    }

    /** A metric of the running job's join, of each subtask that has registered it so far. */
    private static List<Long> joinMetric(JobID job, String name) {
        List<Long> values = new ArrayList<>();
        for (Object value : JoinMetricsReporter.current(job, name).values()) {
            values.add(((Number) value).longValue());
        }
        return values;
    }

    /** A collected heap and a short pause between runs. */
    static void quiesce() throws InterruptedException {
        System.gc();
        Thread.sleep(300);
        System.gc();
        Thread.sleep(700);
    }

    /** Whether the run's job is restarted from its last checkpoint, and the restore timed. */
    private static boolean measuresRestore(RunSpec spec) {
        return spec.mode == Mode.SCALE && spec.flips();
    }

    /**
     * Measures the running job into the result; returns the path of the checkpoint taken at the end
     * when the run measures a restore from it, else null.
     */
    private String measure(
            RunSpec spec,
            BenchRun run,
            ProbeKeys keys,
            JobID job,
            RunResult result,
            long submitMillis,
            long submitNanos,
            Path rocksDb)
            throws Exception {
        List<long[]> series = new ArrayList<>(); // {nanos, probe rows, sink rows}
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(settings.startTimeoutSeconds);
        long lastStatusCheck = 0;
        long flipNanos = 0;
        long flipMillis = 0;
        long maxBuffered = 0;
        long failedAtStart = -1;
        long sinkAtFlip = 0;
        long drainSeenNanos = 0;
        long lastSink = -1;
        long lastSinkChangeNanos = 0;
        double hitRate = keys.hitRate;
        while (true) {
            long now = System.nanoTime();
            if (now - lastStatusCheck > 1_000_000_000L) {
                lastStatusCheck = now;
                JobStatus status = cluster.getJobStatus(job).get(10, TimeUnit.SECONDS);
                if (status.isGloballyTerminalState()) {
                    throw new IllegalStateException(
                            "The job ended with " + status + ": " + failureOf(job));
                }
            }
            if (failedAtStart < 0 && run.probeStartNanos != 0) {
                // Triggers refused while the tasks were still starting count as failed
                // checkpoints; only failures after the job runs are reported.
                failedAtStart = failedCheckpoints(job);
            }
            heap.sample();
            long probe = run.probeTotal();
            series.add(new long[] {now, probe, run.sinkTotal()});
            if (run.probeStartNanos == 0) {
                if (now > deadline) {
                    throw new IllegalStateException(
                            "The probe side did not start within "
                                    + settings.startTimeoutSeconds
                                    + " s (build snapshot not loaded?)");
                }
            } else if (spec.flips() && !run.flipped) {
                List<Long> phases = joinMetric(job, CURRENT_PHASE);
                long buffered =
                        joinMetric(job, NUM_PROBE_SIDE_RECORDS_BUFFERED).stream()
                                .mapToLong(Long::longValue)
                                .sum();
                maxBuffered = Math.max(maxBuffered, buffered);
                if (phases.size() == spec.parallelism && phases.stream().anyMatch(p -> p == 1)) {
                    flipNanos = now;
                    flipMillis = System.currentTimeMillis();
                    sinkAtFlip = run.sinkTotal();
                    run.flipped = true;
                }
                // A held load phase lasts minLoadSeconds once the snapshot is loaded, within the
                // start timeout; one that the backlog ends includes the snapshot's load.
                long flipLimitSeconds =
                        (spec.mode.loadEndsWithBacklog()
                                        ? settings.startTimeoutSeconds
                                        : settings.minLoadSeconds)
                                + 120
                                + scaleSlackSeconds(spec);
                if (now - run.probeStartNanos > TimeUnit.SECONDS.toNanos(flipLimitSeconds)) {
                    throw new IllegalStateException("The join did not flip to the join phase.");
                }
            } else {
                double elapsed = (now - run.probeStartNanos) / 1e9;
                boolean done;
                if (spec.mode == Mode.SCALE) {
                    // The backlog is out with its last joined row: the sources have emitted it,
                    // the rows buffered at a flip have reached the sink, and then nothing has
                    // arrived for a while. What remains after the sources is a drain (for
                    // LATERAL SNAPSHOT) or the network buffers in flight, which never stall
                    // that long unless the job is stuck. An inner join that drops the probe rows
                    // whose build row has not arrived yet (P1) has no count of rows to wait for.
                    long sink = run.sinkTotal();
                    if (sink != lastSink) {
                        lastSink = sink;
                        lastSinkChangeNanos = now;
                    }
                    boolean counted = spec.flips() || spec.contender.emitsEveryProbeRow();
                    boolean allOut =
                            probe >= run.loadRows
                                    && run.snapshotsDone()
                                    && (spec.flips()
                                            ? sink - sinkAtFlip >= 0.98 * hitRate * maxBuffered
                                            : !counted || sink >= run.loadRows);
                    boolean backlogOut =
                            allOut
                                    && now - lastSinkChangeNanos
                                            >= (counted
                                                    ? SCALE_QUIET_NANOS
                                                    : SCALE_QUIET_UNCOUNTED_NANOS);
                    if (backlogOut && spec.flips() && run.joinPhaseAfterBacklog == 0) {
                        // Then the probe sources go on, as new facts follow a topic's backlog,
                        // so that the drain is compared with the join phase on the same state.
                        run.joinPhaseAfterBacklog = now;
                    }
                    done =
                            spec.flips()
                                    ? run.joinPhaseAfterBacklog != 0
                                            && now - run.joinPhaseAfterBacklog
                                                    >= TimeUnit.SECONDS.toNanos(
                                                            settings.postDrainWarmupSeconds
                                                                    + settings.postFlipSeconds)
                                    : backlogOut;
                    long limitSeconds =
                            settings.startTimeoutSeconds + 120 + scaleSlackSeconds(spec);
                    if (!backlogOut
                            && run.joinPhaseAfterBacklog == 0
                            && now - run.probeStartNanos > TimeUnit.SECONDS.toNanos(limitSeconds)) {
                        throw new IllegalStateException(
                                String.format(
                                        "Not every probe row was out %d s after the first was"
                                                + " emitted: %,d of %,d emitted, %,d rows at the"
                                                + " sink",
                                        limitSeconds, probe, run.loadRows, sink));
                    }
                } else if (spec.mode == Mode.THROUGHPUT) {
                    done =
                            (elapsed >= settings.minSeconds && probe >= MIN_PROBE_ROWS)
                                    || elapsed >= settings.maxSeconds;
                } else if (spec.mode == Mode.LATENCY) {
                    done = elapsed >= settings.latencySeconds;
                } else {
                    // The join phase runs for postFlipSeconds after the buffered rows are out
                    // (their hits reached the sink), so that the steady window follows the drain.
                    if (drainSeenNanos == 0
                            && run.sinkTotal() - sinkAtFlip >= 0.98 * hitRate * maxBuffered) {
                        drainSeenNanos = now;
                    }
                    done =
                            (drainSeenNanos != 0
                                            && (now - drainSeenNanos) / 1e9
                                                    >= settings.postFlipSeconds)
                                    || (now - flipNanos) / 1e9 >= 300;
                }
                if (done) {
                    break;
                }
            }
            Thread.sleep(spec.flips() && !run.flipped ? 2 : 100);
        }
        run.stopNanos = System.nanoTime();
        run.stop = true;
        long stopProbe = run.probeTotal();
        series.add(new long[] {run.stopNanos, stopProbe, run.sinkTotal()});

        // Let the job drain what is in flight.
        long last = -1;
        long stableSince = System.nanoTime();
        long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < drainDeadline) {
            long sink = run.sinkTotal();
            if (sink != last) {
                last = sink;
                stableSince = System.nanoTime();
            } else if (System.nanoTime() - stableSince > 1_000_000_000L) {
                break;
            }
            heap.sample();
            Thread.sleep(100);
        }

        if (spec.contender.isSnapshot()) {
            joinShares(job, result);
        }
        if (spec.flips()) {
            loadPhaseEnd(job, result);
        }
        long lastRowMillis = Long.MAX_VALUE;
        if (spec.mode == Mode.SCALE) {
            // The backlog's rows are those stamped before the join phase after it.
            long lastArrival =
                    run.lastArrivalBefore(
                            run.joinPhaseAfterBacklog == 0
                                    ? Integer.MAX_VALUE
                                    : run.bucketOf(run.joinPhaseAfterBacklog));
            result.lastRowSeconds = (lastArrival - submitNanos) / 1e9;
            lastRowMillis = submitMillis + Math.round(result.lastRowSeconds * 1e3);
            result.buildRowsPerSecond =
                    run.buildKeys / ((run.snapshotDoneNanos - run.buildStartNanos) / 1e9);
            if (spec.backend.onDisk()) {
                result.localStateBytes = sizeOnDisk(rocksDb);
            }
            result.scaleCheckpointsCompleted = 0;
            result.scaleCheckpointedBytes = 0;
            result.scaleCheckpointMaxMillis = 0;
        }

        // State at the end: a checkpoint now, of the kind the job is configured for, whose
        // statistics give the whole state's size where it is incremental too. Not a full one:
        // Flink 2.3's ForSt, with incremental checkpoints configured, completed none in these
        // runs, and its tasks could then not close (docs/operations.md, "State backends").
        long checkpointId = -1;
        try {
            checkpointId =
                    cluster.triggerCheckpoint(job, CheckpointType.CONFIGURED)
                            .get(settings.checkpointTimeoutSeconds, TimeUnit.SECONDS);
        } catch (Exception e) {
            // reported as a missing state size; periodic checkpoint failures are counted below
        }
        heap.sample();
        result.peakHeapUsed = heap.peakUsed();
        result.peakHeapAfterGc = heap.peakAfterGc();

        AccessExecutionGraph graph = cluster.getExecutionGraph(job).get(30, TimeUnit.SECONDS);
        CheckpointStatsSnapshot stats = graph.getCheckpointStatsSnapshot();
        result.checkpointsCompleted = stats.getCounts().getNumberOfCompletedCheckpoints();
        result.checkpointsFailed =
                stats.getCounts().getNumberOfFailedCheckpoints() - Math.max(0, failedAtStart);
        String lastCheckpoint = null;
        long loadOk = 0;
        long loadFailed = 0;
        long loadCheckpointed = 0;
        for (AbstractCheckpointStats checkpoint : stats.getHistory().getCheckpoints()) {
            if (settings.verbose) {
                System.out.printf(
                        "  checkpoint %d %s trigger %+d ms ack %+d ms size %d%n",
                        checkpoint.getCheckpointId(),
                        checkpoint.getStatus(),
                        checkpoint.getTriggerTimestamp() - submitMillis,
                        checkpoint.getLatestAckTimestamp() - submitMillis,
                        checkpoint.getStateSize());
            }
            if (checkpoint.getCheckpointId() == checkpointId
                    && checkpoint instanceof CompletedCheckpointStats) {
                result.stateSizeBytes = checkpoint.getStateSize();
                lastCheckpoint = ((CompletedCheckpointStats) checkpoint).getExternalPath();
            }
            if (checkpoint instanceof org.apache.flink.runtime.checkpoint.FailedCheckpointStats) {
                String message =
                        ((org.apache.flink.runtime.checkpoint.FailedCheckpointStats) checkpoint)
                                .getFailureMessage();
                result.checkpointFailure =
                        "checkpoint " + checkpoint.getCheckpointId() + ": " + message;
            }
            if (spec.mode == Mode.SCALE
                    && checkpoint.getStatus() == CheckpointStatsStatus.COMPLETED
                    && checkpoint.getLatestAckTimestamp() <= lastRowMillis) {
                result.scaleCheckpointsCompleted++;
                result.scaleCheckpointedBytes += checkpoint.getCheckpointedSize();
                result.scaleCheckpointMaxMillis =
                        Math.max(result.scaleCheckpointMaxMillis, checkpoint.getEndToEndDuration());
            }
            if (flipMillis > 0 && checkpoint.getTriggerTimestamp() < flipMillis) {
                if (checkpoint.getStatus() == CheckpointStatsStatus.COMPLETED
                        && checkpoint.getLatestAckTimestamp() <= flipMillis) {
                    loadOk++;
                    loadCheckpointed += checkpoint.getCheckpointedSize();
                } else if (checkpoint.getStatus() == CheckpointStatsStatus.FAILED) {
                    loadFailed++;
                }
            }
        }

        // ---- throughput ----
        result.probeRows = stopProbe;
        result.sinkRows = run.sinkTotal();
        long windowStart;
        if (spec.flips()) {
            result.bufferedAtFlip = maxBuffered;
            result.loadPhaseSeconds = (flipMillis - submitMillis) / 1e3;
            result.loadCheckpointsCompleted = loadOk;
            result.loadCheckpointsFailed = loadFailed;
            result.loadCheckpointedBytes = loadCheckpointed;
            long drainEnd = run.lastArrivalBefore(run.bucketOf(flipNanos) - 1);
            result.drainMillis = (drainEnd - flipNanos) / 1e6;
            long flipAt = flipMillis;
            long drainEndMillis = flipAt + Math.round(result.drainMillis);
            result.drainCheckpointsCompleted =
                    stats.getHistory().getCheckpoints().stream()
                            .filter(c -> c.getStatus() == CheckpointStatsStatus.COMPLETED)
                            .filter(c -> c.getLatestAckTimestamp() > flipAt)
                            .filter(c -> c.getLatestAckTimestamp() <= drainEndMillis)
                            .count();
            result.drainRate = maxBuffered / Math.max(1e-9, (drainEnd - flipNanos) / 1e9);
            // A scale run's join phase starts once its whole backlog is out, after a quiet time.
            windowStart =
                    Math.max(drainEnd, run.joinPhaseAfterBacklog)
                            + TimeUnit.SECONDS.toNanos(settings.postDrainWarmupSeconds);
        } else {
            windowStart = run.probeStartNanos + TimeUnit.SECONDS.toNanos(settings.warmupSeconds);
        }
        long windowEnd = run.stopNanos;
        if (windowEnd - windowStart < 2_000_000_000L) {
            // A load-phase run whose drain took most of the join phase: measure what is left.
            windowStart = Math.min(windowStart, windowEnd - 2_000_000_000L);
        }
        result.measuredSeconds = (windowEnd - windowStart) / 1e9;
        long mid = windowStart + (windowEnd - windowStart) / 2;
        result.rate = rate(series, windowStart, windowEnd);
        result.joinedRate =
                rate(series, windowStart, windowEnd, 2) / spec.contender.hitsPerProbeRow(keys);
        result.rateFirstHalf = rate(series, windowStart, mid);
        result.rateSecondHalf = rate(series, mid, windowEnd);
        result.timeBounded = spec.mode == Mode.THROUGHPUT && stopProbe < MIN_PROBE_ROWS;

        // ---- latency over the same window (whole seconds of arrival) ----
        Histogram merged = new Histogram(3_600_000_000L, 2);
        int firstSecond = (int) ((windowStart - run.originNanos) / 1_000_000_000L) + 1;
        int lastSecond = (int) ((windowEnd - run.originNanos) / 1_000_000_000L) - 1;
        for (SinkStats sink : run.sinkStats) {
            result.sinkRetractions += sink.retractions;
            for (int s = firstSecond; s <= lastSecond && s < SinkStats.MAX_SECONDS; s++) {
                if (s >= 0 && sink.latencyBySecond[s] != null) {
                    merged.add(sink.latencyBySecond[s]);
                }
            }
        }
        if (settings.verbose) {
            // Latency second by second, to tell steady queueing from stalls.
            for (int s = Math.max(0, firstSecond);
                    s <= lastSecond && s < SinkStats.MAX_SECONDS;
                    s++) {
                Histogram second = new Histogram(3_600_000_000L, 2);
                for (SinkStats sink : run.sinkStats) {
                    if (sink.latencyBySecond[s] != null) {
                        second.add(sink.latencyBySecond[s]);
                    }
                }
                System.out.printf(
                        "  second %d: %d rows, p99 %s, max %s%n",
                        s,
                        second.getTotalCount(),
                        Format.millis(second.getValueAtPercentile(99)),
                        Format.millis(second.getMaxValue()));
            }
        }
        result.latencyCount = merged.getTotalCount();
        if (merged.getTotalCount() > 0) {
            result.p50 = merged.getValueAtPercentile(50);
            result.p99 = merged.getValueAtPercentile(99);
            result.p999 = merged.getValueAtPercentile(99.9);
            result.maxLatency = merged.getMaxValue();
        }
        return measuresRestore(spec) ? lastCheckpoint : null;
    }

    /**
     * The subtasks of the join that joined probe rows, and the largest share of one. A subtask's
     * probe rows are the rows its operator emitted ({@code numRecordsOut}) plus those it matched
     * with no build row: exact for these inner joins, in which a probe row matches at most one
     * build row (an upsert build side keyed as the condition, or bands that do not overlap).
     * Flink's {@code numRecordsIn} of the operator would not do: it counts both inputs, and the
     * build input differs between the distributions.
     */
    private static void joinShares(JobID job, RunResult result) {
        Map<Integer, Long> emitted = joinMetricBySubtask(job, MetricNames.IO_NUM_RECORDS_OUT);
        Map<Integer, Long> unmatched = joinMetricBySubtask(job, NUM_UNMATCHED_PROBE_RECORDS);
        long total = 0;
        long max = 0;
        int subtasks = 0;
        for (Map.Entry<Integer, Long> e : emitted.entrySet()) {
            long rows = e.getValue() + unmatched.getOrDefault(e.getKey(), 0L);
            total += rows;
            max = Math.max(max, rows);
            if (rows > 0) {
                subtasks++;
            }
        }
        if (total > 0) {
            result.joinSubtasks = subtasks;
            result.maxJoinShare = (double) max / total;
        }
    }

    /**
     * How long the join's load phase lasted and why it ended, by its gauges: the longest of its
     * subtasks, and the reason if all of them give the same one (else -1).
     */
    private static void loadPhaseEnd(JobID job, RunResult result) {
        List<Long> reasons = joinMetric(job, LOAD_COMPLETED_REASON);
        result.loadCompletedReason = reasons.stream().distinct().count() == 1 ? reasons.get(0) : -1;
        result.loadPhaseGaugeMillis =
                joinMetric(job, LOAD_PHASE_DURATION_MS).stream()
                        .mapToLong(Long::longValue)
                        .max()
                        .orElse(-1);
    }

    /**
     * Extra time a scale run may take to flip and to end, over the limits of the other runs: 2k
     * build keys per second, under the 4k to 5k per second that the regular join on RocksDB took in
     * at 1M keys on a loaded machine (see "Scale: load-dominated runs" in
     * docs/benchmarks-notes.md); at 10k its 5M run hit the limit.
     */
    private static long scaleSlackSeconds(RunSpec spec) {
        return spec.mode == Mode.SCALE ? spec.scenario.buildKeys / 2_000 : 0;
    }

    /** The bytes of the files under a directory that a running job is writing to. */
    private static long sizeOnDisk(Path dir) {
        if (!Files.exists(dir)) {
            return -1;
        }
        long bytes = 0;
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                try {
                    if (Files.isRegularFile(path)) {
                        bytes += Files.size(path);
                    }
                } catch (IOException deleted) {
                    // RocksDB removed the file (a compaction) while it was being counted.
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            return -1;
        }
        return bytes;
    }

    private long failedCheckpoints(JobID job) throws Exception {
        return cluster.getExecutionGraph(job)
                .get(30, TimeUnit.SECONDS)
                .getCheckpointStatsSnapshot()
                .getCounts()
                .getNumberOfFailedCheckpoints();
    }

    /** Probe rows per second between two times, from the samples closest inside. */
    private static double rate(List<long[]> series, long from, long to) {
        return rate(series, from, to, 1);
    }

    /** A column of the samples (1: probe rows, 2: sink rows) per second between two times. */
    private static double rate(List<long[]> series, long from, long to, int column) {
        long[] a = null;
        long[] b = null;
        for (long[] sample : series) {
            if (a == null && sample[0] >= from) {
                a = sample;
            }
            if (sample[0] <= to) {
                b = sample;
            }
        }
        if (a == null || b == null || b[0] <= a[0]) {
            return Double.NaN;
        }
        return (b[column] - a[column]) / ((b[0] - a[0]) / 1e9);
    }

    private String failureOf(JobID job) {
        try {
            JobResult result = cluster.requestJobResult(job).get(30, TimeUnit.SECONDS);
            return result.getSerializedThrowable()
                    .map(t -> rootMessage(t.deserializeError(getClass().getClassLoader())))
                    .orElse("no failure cause");
        } catch (Exception e) {
            return "unknown (" + e + ")";
        }
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    static void deleteRecursively(Path path) {
        if (!Files.exists(path)) {
            return;
        }
        // A cancelled job may still be writing a checkpoint: retry, and never fail the run.
        for (int attempt = 0; attempt < 5 && Files.exists(path); attempt++) {
            try (Stream<Path> paths = Files.walk(path)) {
                paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            } catch (IOException | RuntimeException e) {
                try {
                    Thread.sleep(500);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
