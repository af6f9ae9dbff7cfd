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

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The knobs of a benchmark run; every one can be set on the command line as --name=value. */
final class Settings {

    int parallelism = 2;
    String managedMemory = "1g";

    /** One build update (a -U/+U pair) per this many probe rows: 1% of the probe rate. */
    long probeRowsPerUpdate = 100;

    /**
     * How far one probe subtask may run ahead of the slowest, in rows; 0 for no limit, -1 for the
     * plan's (no limit, and {@value #BROADCAST_PROBE_LEAD_ROWS} for {@code --plan=broadcast}).
     */
    long probeLeadRows = -1;

    static final long BROADCAST_PROBE_LEAD_ROWS = 65_536;

    /** Flink's {@code pipeline.object-reuse}; off by default, as in Flink. */
    boolean objectReuse = false;

    /**
     * RocksDB's and ForSt's Bloom filter ({@code state.backend.rocksdb.use-bloom-filter}, {@code
     * state.backend.forst.use-bloom-filter}); off by default, as in Flink.
     */
    boolean bloomFilter = false;

    // ---- throughput runs ----
    int warmupSeconds = 4;

    /** A throughput run stops when it has run this long and emitted 10M probe rows ... */
    int minSeconds = 12;

    /** ... or when it has run this long (slow contenders: time-bounded). */
    int maxSeconds = 30;

    /**
     * The probe rate of the range join's throughput runs (P5R, P5RB), over all subtasks: above what
     * either distribution joins on 2 cores, so the joins still run flat out, but bounded, because
     * the join takes the probe rows it cannot join yet into its buffer (they wait for the build
     * watermark) and a source at full speed would fill the heap within a run.
     */
    long rangeProbeRate = 150_000;

    // ---- latency runs ----
    long fixedRate = 20_000;
    int latencySeconds = 16;
    long latencyBufferTimeoutMillis = 5;

    // ---- load-phase runs ----
    long loadRows = 1_000_000;
    int minLoadSeconds = 25;
    int postFlipSeconds = 12;
    int postDrainWarmupSeconds = 2;

    /**
     * How often each job checkpoints, in seconds; -1 for the plan's (10 s, and {@value
     * #BACKLOG_CHECKPOINT_INTERVAL_SECONDS} s for {@code --plan=backlog-checkpoints}).
     */
    int checkpointIntervalSeconds = -1;

    /**
     * The checkpoint interval of {@code --plan=backlog-checkpoints} without an interval during the
     * backlog: short, so that a load of half a minute has many checkpoints to lose or keep.
     */
    static final int BACKLOG_CHECKPOINT_INTERVAL_SECONDS = 1;

    /**
     * The interval during the backlog that {@code --plan=backlog-checkpoints} compares with none:
     * longer than the load, so that it takes no checkpoint once the backlog has begun.
     */
    int intervalDuringBacklogSeconds = 60;

    /**
     * The build keys of each size of {@code --plan=scale}, one probe row per key: 1M and 5M, which
     * fit this machine's runs of about half an hour; 20M is there to be asked for.
     */
    List<Integer> scaleKeys = new ArrayList<>(List.of(1_000_000, 5_000_000));

    /** The state backends of {@code --plan=scale}; ForSt is there to be asked for. */
    List<RunSpec.Backend> scaleBackends = new ArrayList<>(RunSpec.Backend.HEAP_AND_ROCKSDB);

    int startTimeoutSeconds = 180;
    int checkpointTimeoutSeconds = 180;

    // ---- what to run ----
    String plan = "default";
    int rounds = 0; // 0: the plan's
    List<String> only = new ArrayList<>();
    Path workDir = Paths.get("target", "enrichment");
    Path docsDir = Paths.get("..", "docs");
    boolean writeDocs = true;
    boolean verbose = false;
    boolean warmUp = true;

    List<String> rawArgs = new ArrayList<>();

    static Settings parse(String[] args) {
        Settings s = new Settings();
        List<String> words = new ArrayList<>();
        for (String arg : args) {
            // Maven passes the options of -Denrichment.args as one argument.
            for (String word : arg.trim().split("\\s+(?=--)")) {
                if (!word.isBlank()) {
                    words.add(word.trim());
                }
            }
        }
        for (String arg : words) {
            if (!arg.startsWith("--work-dir=") && !arg.startsWith("--docs-dir=")) {
                s.rawArgs.add(arg);
            }
            if (!arg.startsWith("--") || !arg.contains("=")) {
                throw new IllegalArgumentException("Expected --name=value, got " + arg);
            }
            String name = arg.substring(2, arg.indexOf('='));
            String value = arg.substring(arg.indexOf('=') + 1);
            switch (name) {
                case "plan":
                    s.plan = value;
                    break;
                case "rounds":
                    s.rounds = Integer.parseInt(value);
                    break;
                case "only":
                    for (String part : value.split(",")) {
                        if (!part.isBlank()) {
                            s.only.add(part.trim());
                        }
                    }
                    break;
                case "parallelism":
                    s.parallelism = Integer.parseInt(value);
                    break;
                case "managed-memory":
                    s.managedMemory = value;
                    break;
                case "probe-lead-rows":
                    s.probeLeadRows = Long.parseLong(value);
                    break;
                case "object-reuse":
                    s.objectReuse = Boolean.parseBoolean(value);
                    break;
                case "bloom-filter":
                    s.bloomFilter = Boolean.parseBoolean(value);
                    break;
                case "warmup-seconds":
                    s.warmupSeconds = Integer.parseInt(value);
                    break;
                case "min-seconds":
                    s.minSeconds = Integer.parseInt(value);
                    break;
                case "max-seconds":
                    s.maxSeconds = Integer.parseInt(value);
                    break;
                case "range-probe-rate":
                    s.rangeProbeRate = Long.parseLong(value);
                    break;
                case "fixed-rate":
                    s.fixedRate = Long.parseLong(value);
                    break;
                case "latency-seconds":
                    s.latencySeconds = Integer.parseInt(value);
                    break;
                case "latency-buffer-timeout-ms":
                    s.latencyBufferTimeoutMillis = Long.parseLong(value);
                    break;
                case "load-rows":
                    s.loadRows = Long.parseLong(value);
                    break;
                case "min-load-seconds":
                    s.minLoadSeconds = Integer.parseInt(value);
                    break;
                case "post-flip-seconds":
                    s.postFlipSeconds = Integer.parseInt(value);
                    break;
                case "checkpoint-interval-seconds":
                    s.checkpointIntervalSeconds = Integer.parseInt(value);
                    break;
                case "interval-during-backlog-seconds":
                    s.intervalDuringBacklogSeconds = Integer.parseInt(value);
                    break;
                case "scale-keys":
                    s.scaleKeys.clear();
                    for (String part : value.split(",")) {
                        s.scaleKeys.add(Integer.parseInt(part.trim()));
                    }
                    break;
                case "scale-backends":
                    s.scaleBackends.clear();
                    for (String part : value.split(",")) {
                        s.scaleBackends.add(
                                RunSpec.Backend.valueOf(part.trim().toUpperCase(Locale.ROOT)));
                    }
                    break;
                case "work-dir":
                    s.workDir = Paths.get(value);
                    break;
                case "docs-dir":
                    s.docsDir = Paths.get(value);
                    break;
                case "write-docs":
                    s.writeDocs = Boolean.parseBoolean(value);
                    break;
                case "warm-up":
                    s.warmUp = Boolean.parseBoolean(value);
                    break;
                case "verbose":
                    s.verbose = Boolean.parseBoolean(value);
                    break;
                default:
                    throw new IllegalArgumentException("Unknown option --" + name);
            }
        }
        if (s.probeLeadRows < 0) {
            s.probeLeadRows = s.plan.equals("broadcast") ? BROADCAST_PROBE_LEAD_ROWS : 0;
        }
        if (s.checkpointIntervalSeconds < 0) {
            s.checkpointIntervalSeconds =
                    s.plan.equals("backlog-checkpoints") ? BACKLOG_CHECKPOINT_INTERVAL_SECONDS : 10;
        }
        return s;
    }
}
