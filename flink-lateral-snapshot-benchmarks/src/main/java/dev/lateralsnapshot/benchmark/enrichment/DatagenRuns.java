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
import dev.lateralsnapshot.testutils.metrics.JoinMetrics;
import dev.lateralsnapshot.testutils.metrics.JoinMetricsReporter;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.state.forst.ForStOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.LOAD_COMPLETED_REASON;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.LOAD_PHASE_DURATION_MS;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_PROBE_RECORDS;

/**
 * {@code --plan=datagen}: the load-dominated comparison as a new user makes it, in SQL alone.
 * Flink's bounded {@code datagen} tables give N build keys (a primary key, one row each, a constant
 * {@code on_time} in the past) and N probe rows over the same keys at once, both as fast as the
 * sources make them; the LATERAL SNAPSHOT join and the regular LEFT join write into a {@code
 * blackhole} table, and a third job writes both tables straight into one each, the floor of the
 * other two; parallelism 2 and a checkpoint every 20 s, incremental on RocksDB and ForSt. Each run
 * is timed from the job's submission to its end. Unlike the scale group, whose own sources and sink
 * time the rows, nothing in the jobs is the benchmark's: what the time includes (the job's start,
 * the sources' generation, the end of the job) is what a user's own measurement includes. The build
 * side is bounded, so the load phase ends with its input.
 *
 * <p>Prints one line per run and a table of the medians; writes nothing into the docs.
 */
final class DatagenRuns {

    private static final int CHECKPOINT_INTERVAL_SECONDS = 20;

    /** The keys of the unreported jobs that warm the JVM up before each backend's rounds. */
    private static final int WARM_UP_KEYS = 100_000;

    /** The jobs of each round, in the order of the table's columns. */
    enum Job {
        SNAPSHOT(
                "LATERAL SNAPSHOT",
                "INSERT INTO enriched SELECT p.oid, p.pid, p.qty, b.name, b.price FROM probe AS p"
                        + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE build,"
                        + " on_time => DESCRIPTOR(on_time)) AS b ON p.pid = b.pid"),
        REGULAR(
                "regular LEFT",
                "INSERT INTO enriched SELECT p.oid, p.pid, p.qty, b.name, b.price FROM probe AS p"
                        + " LEFT JOIN build AS b ON p.pid = b.pid"),
        /**
         * Both tables straight into a {@code blackhole} each: what generating the rows and running
         * a job cost, below which neither join can go.
         */
        SOURCES(
                "sources alone",
                "INSERT INTO probe_out SELECT * FROM probe",
                "INSERT INTO build_out SELECT pid, name, price FROM build");

        final String label;
        final List<String> inserts;

        Job(String label, String... inserts) {
            this.label = label;
            this.inserts = List.of(inserts);
        }
    }

    private final Settings settings;
    private final MiniCluster cluster;

    private DatagenRuns(Settings settings, MiniCluster cluster) {
        this.settings = settings;
        this.cluster = cluster;
    }

    static void run(Settings settings) throws Exception {
        int rounds = settings.rounds > 0 ? settings.rounds : 2;
        List<String> table = new ArrayList<>();
        table.add(
                "| keys | backend | LATERAL SNAPSHOT, median | regular LEFT, median | sources"
                        + " alone, median | snapshot / regular speed | per round |");
        table.add("|---:|---|---:|---:|---:|---:|---|");
        try (MiniCluster cluster = JobRunner.startCluster(settings, settings.parallelism)) {
            DatagenRuns runs = new DatagenRuns(settings, cluster);
            for (int keys : settings.scaleKeys) {
                for (Backend backend : settings.scaleBackends) {
                    if (settings.warmUp) {
                        // The JIT compiles the jobs' code paths here, not in the first round. The
                        // first round at full size was still the slowest in the recorded runs
                        // (docs/benchmarks-notes.md): the median of three rounds leaves it out.
                        for (Job job : Job.values()) {
                            runs.time(WARM_UP_KEYS, backend, job, 0);
                        }
                    }
                    Map<Job, List<Double>> times = new EnumMap<>(Job.class);
                    List<String> perRound = new ArrayList<>();
                    for (int round = 1; round <= rounds; round++) {
                        // Rotate the order of the jobs, so that none always meets the JVM fresher
                        // than another: the JIT's and the collector's state carry from job to job.
                        Job[] jobs = Job.values();
                        Map<Job, Double> ofRound = new EnumMap<>(Job.class);
                        for (int i = 0; i < jobs.length; i++) {
                            Job job = jobs[(i + round - 1) % jobs.length];
                            ofRound.put(job, runs.time(keys, backend, job, round));
                        }
                        ofRound.forEach(
                                (job, t) ->
                                        times.computeIfAbsent(job, j -> new ArrayList<>()).add(t));
                        perRound.add(
                                String.format(
                                        "%.2fx",
                                        ofRound.get(Job.REGULAR) / ofRound.get(Job.SNAPSHOT)));
                    }
                    double s = Cells.median(times.get(Job.SNAPSHOT));
                    double r = Cells.median(times.get(Job.REGULAR));
                    table.add(
                            String.format(
                                    "| %,d | %s | %.1f s | %.1f s | %.1f s | %.2fx | %s |",
                                    keys,
                                    backend.label,
                                    s,
                                    r,
                                    Cells.median(times.get(Job.SOURCES)),
                                    r / s,
                                    String.join(", ", perRound)));
                }
            }
        }
        System.out.println();
        table.forEach(System.out::println);
    }

    /** Runs one job to its end; returns the seconds from its submission. Round 0 warms up. */
    private double time(int keys, Backend backend, Job kind, int round) throws Exception {
        Path work = settings.workDir.resolve("datagen");
        Path checkpoints = Files.createTempDirectory(Files.createDirectories(work), "checkpoints");
        try {
            StreamGraph graph = graph(keys, backend, kind, checkpoints);
            JobRunner.quiesce();
            long start = System.nanoTime();
            JobID job = cluster.submitJob(graph).get(60, TimeUnit.SECONDS).getJobID();
            JobResult result = cluster.requestJobResult(job).get();
            double seconds = (System.nanoTime() - start) / 1e9;
            if (!result.isSuccess()) {
                throw new IllegalStateException(
                        "The job failed: "
                                + JobRunner.rootMessage(
                                        result.getSerializedThrowable().orElseThrow()));
            }
            String line =
                    String.format(
                            "%,d keys, %s, %s, %s: %.1f s",
                            keys,
                            backend.label,
                            kind.label,
                            round == 0 ? "warm-up" : "round " + round,
                            seconds);
            if (kind == Job.SNAPSHOT) {
                JoinMetrics metrics = JoinMetricsReporter.of(job);
                line +=
                        String.format(
                                " (load phase %s ms, loadCompletedReason %s, unmatched probe"
                                        + " rows %s)",
                                metrics.longs(LOAD_PHASE_DURATION_MS).values(),
                                metrics.longs(LOAD_COMPLETED_REASON).values(),
                                metrics.sum(NUM_UNMATCHED_PROBE_RECORDS));
                JoinMetricsReporter.forget(job);
            }
            System.out.println(line);
            return seconds;
        } finally {
            JobRunner.deleteRecursively(checkpoints);
        }
    }

    private StreamGraph graph(int keys, Backend backend, Job kind, Path checkpoints) {
        Configuration job =
                JobRunner.jobConfiguration(
                        backend, checkpoints, CHECKPOINT_INTERVAL_SECONDS, settings.parallelism);
        if (backend.onDisk()) {
            job.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        }
        // A finished task otherwise waits for the next periodic checkpoint before the job ends,
        // which comes at any time within the interval (the first at a random delay): seconds that
        // measure the checkpoint timer, not the job, and differ from run to run.
        job.set(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH, false);
        if (backend == Backend.FORST) {
            job.set(ForStOptions.PRIMARY_DIRECTORY, "local");
        }
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(job);
        // Both joins in the planner of the drop-in jar, as a user who installed it runs them.
        StreamTableEnvironment tEnv = JobRunner.dropInPlannerEnvironment(env);
        for (String ddl : ddl(keys)) {
            tEnv.executeSql(ddl);
        }
        StreamStatementSet set = tEnv.createStatementSet();
        kind.inserts.forEach(set::addInsertSql);
        set.attachAsDataStream();
        StreamGraph graph = env.getStreamGraph();
        graph.setJobName("datagen " + kind.label + " " + keys + " " + backend.label);
        graph.setJobId(new JobID());
        return graph;
    }

    /**
     * The tables: {@code build}'s keys are a sequence, so each key has one row; its {@code on_time}
     * is a constant in the past, so that the build watermark does not reach the time the query was
     * compiled at and the load phase ends with the build input, not before.
     */
    static List<String> ddl(int keys) {
        String lastKey = Long.toString(keys - 1L);
        return List.of(
                "CREATE TEMPORARY TABLE build ("
                        + " pid BIGINT, name STRING, price DOUBLE,"
                        + " on_time AS TIMESTAMP '2000-01-01 00:00:00',"
                        + " WATERMARK FOR on_time AS on_time,"
                        + " PRIMARY KEY (pid) NOT ENFORCED"
                        + ") WITH ('connector' = 'datagen', 'number-of-rows' = '"
                        + keys
                        + "', 'rows-per-second' = '1000000000',"
                        + " 'fields.pid.kind' = 'sequence', 'fields.pid.start' = '0',"
                        + " 'fields.pid.end' = '"
                        + lastKey
                        + "', 'fields.name.length' = '16')",
                "CREATE TEMPORARY TABLE probe (oid BIGINT, pid BIGINT, qty INT)"
                        + " WITH ('connector' = 'datagen', 'number-of-rows' = '"
                        + keys
                        + "', 'rows-per-second' = '1000000000',"
                        + " 'fields.oid.kind' = 'sequence', 'fields.oid.start' = '0',"
                        + " 'fields.oid.end' = '"
                        + lastKey
                        + "', 'fields.pid.min' = '0', 'fields.pid.max' = '"
                        + lastKey
                        + "', 'fields.qty.min' = '1', 'fields.qty.max' = '100')",
                "CREATE TEMPORARY TABLE enriched ("
                        + " oid BIGINT, pid BIGINT, qty INT, name STRING, price DOUBLE"
                        + ") WITH ('connector' = 'blackhole')",
                "CREATE TEMPORARY TABLE probe_out (oid BIGINT, pid BIGINT, qty INT)"
                        + " WITH ('connector' = 'blackhole')",
                "CREATE TEMPORARY TABLE build_out (pid BIGINT, name STRING, price DOUBLE)"
                        + " WITH ('connector' = 'blackhole')");
    }
}
