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
import dev.lateralsnapshot.benchmark.enrichment.RunSpec.Scenario;

import org.apache.flink.runtime.util.EnvironmentInformation;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/** Writes docs/benchmarks.md and docs/benchmarks.png from the results of a run. */
final class Report {

    static final String COMMAND =
            "mvn -B -Penrichment -pl flink-lateral-snapshot-benchmarks -am verify -DskipTests";

    /** What is known about the run besides its results; kept in the work dir as properties. */
    static final class Meta {
        LocalDateTime start;
        Duration duration;
        double loadBefore;
        double loadAfter;
        List<Double> loads = new ArrayList<>();
        List<EnrichmentBenchmark.Group> groups;
        Properties properties = new Properties();
    }

    // ---- formatting ----

    static String bytes(long bytes) {
        if (bytes < 0) {
            return "n/a";
        }
        if (bytes < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.0f KiB", bytes / 1024.0);
        }
        if (bytes < 1024L * 1024 * 1024) {
            return String.format(Locale.ROOT, "%.0f MiB", bytes / 1024.0 / 1024);
        }
        return String.format(Locale.ROOT, "%.2f GiB", bytes / 1024.0 / 1024 / 1024);
    }

    static String millis(double micros) {
        if (Double.isNaN(micros)) {
            return "n/a";
        }
        if (micros < 10_000) {
            return String.format(Locale.ROOT, "%.1f ms", micros / 1000);
        }
        return String.format(Locale.ROOT, "%.0f ms", micros / 1000);
    }

    static String rows(double rate) {
        if (Double.isNaN(rate)) {
            return "n/a";
        }
        if (rate >= 1e6) {
            return String.format(Locale.ROOT, "%.2fM", rate / 1e6);
        }
        return String.format(Locale.ROOT, "%.0fk", rate / 1e3);
    }

    static String ratio(double ratio) {
        if (Double.isNaN(ratio)) {
            return "n/a";
        }
        return ratio >= 10
                ? String.format(Locale.ROOT, "%.0fx", ratio)
                : String.format(Locale.ROOT, "%.2fx", ratio);
    }

    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    static double median(List<Double> values) {
        List<Double> sorted =
                values.stream().filter(v -> !Double.isNaN(v)).sorted().collect(Collectors.toList());
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    // ---- meta and CSV ----

    static void writeMeta(Path dir, Meta meta, Settings settings) throws IOException {
        Properties p = new Properties();
        p.setProperty("start", meta.start.toString());
        p.setProperty("durationSeconds", String.valueOf(meta.duration.toSeconds()));
        p.setProperty("loadBefore", String.valueOf(meta.loadBefore));
        p.setProperty("loadAfter", String.valueOf(meta.loadAfter));
        p.setProperty(
                "loads", meta.loads.stream().map(String::valueOf).collect(Collectors.joining(",")));
        p.setProperty("plan", settings.plan);
        p.setProperty(
                "groups",
                meta.groups.stream()
                        .map(
                                g ->
                                        g.id
                                                + "|"
                                                + g.scenario.name
                                                + "|"
                                                + g.mode
                                                + "|"
                                                + g.rounds
                                                + "|"
                                                + g.contenders.stream()
                                                        .map(c -> c.name())
                                                        .collect(Collectors.joining(" "))
                                                + "|"
                                                + g.heapOnly.stream()
                                                        .map(c -> c.name())
                                                        .collect(Collectors.joining(" "))
                                                + "|"
                                                + g.why)
                        .collect(Collectors.joining("\n")));
        p.setProperty("args", String.join(" ", settings.rawArgs));
        p.setProperty("parallelism", String.valueOf(settings.parallelism));
        p.setProperty("fixedRate", String.valueOf(settings.fixedRate));
        p.setProperty(
                "latencyBufferTimeoutMillis", String.valueOf(settings.latencyBufferTimeoutMillis));
        p.setProperty(
                "throughputRun",
                "warm-up "
                        + settings.warmupSeconds
                        + " s; stop at >= "
                        + settings.minSeconds
                        + " s and >= 10M probe rows, or at "
                        + settings.maxSeconds
                        + " s");
        p.setProperty(
                "latencyRun",
                settings.latencySeconds + " s, warm-up " + settings.warmupSeconds + " s");
        p.setProperty(
                "loadRun",
                settings.loadRows
                        + " probe rows buffered, load phase >= "
                        + settings.minLoadSeconds
                        + " s, then "
                        + settings.postFlipSeconds
                        + " s in the join phase");
        p.setProperty("managedMemory", settings.managedMemory);
        p.setProperty("objectReuse", String.valueOf(settings.objectReuse));
        p.setProperty(
                "java",
                System.getProperty("java.vm.name")
                        + " "
                        + System.getProperty("java.runtime.version"));
        p.setProperty(
                "jvmArgs",
                String.join(
                        " ",
                        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                                .filter(a -> !a.startsWith("--add-opens"))
                                .collect(Collectors.toList())));
        p.setProperty("maxHeap", bytes(Runtime.getRuntime().maxMemory()));
        p.setProperty("cpus", String.valueOf(Runtime.getRuntime().availableProcessors()));
        p.setProperty("cpuModel", cpuModel());
        p.setProperty("memory", memTotal());
        p.setProperty("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        p.setProperty("flink", EnvironmentInformation.getVersion());
        try (Writer w = Files.newBufferedWriter(dir.resolve("meta.properties"))) {
            p.store(w, "enrichment benchmark run");
        }
    }

    static Meta readMeta(Path dir) throws IOException {
        Meta meta = new Meta();
        try (Reader r = Files.newBufferedReader(dir.resolve("meta.properties"))) {
            meta.properties.load(r);
        }
        Properties p = meta.properties;
        meta.start = LocalDateTime.parse(p.getProperty("start"));
        meta.duration = Duration.ofSeconds(Long.parseLong(p.getProperty("durationSeconds")));
        meta.loadBefore = Double.parseDouble(p.getProperty("loadBefore"));
        meta.loadAfter = Double.parseDouble(p.getProperty("loadAfter"));
        for (String l : p.getProperty("loads", "").split(",")) {
            if (!l.isBlank()) {
                meta.loads.add(Double.parseDouble(l));
            }
        }
        return meta;
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String memTotal() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream()
                    .filter(l -> l.startsWith("MemTotal"))
                    .map(
                            l ->
                                    String.format(
                                            Locale.ROOT,
                                            "%.0f GiB",
                                            Long.parseLong(l.replaceAll("[^0-9]", ""))
                                                    / 1024.0
                                                    / 1024))
                    .findFirst()
                    .orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The column of {@link RunResult#csvHeader()} that holds the parallelism. */
    private static final int PARALLELISM_COLUMN = 32;

    static List<RunResult> readCsv(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        List<RunResult> results = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            List<String> f = splitCsv(line);
            // Results written before the parallelism was a column ran at the default of 2.
            int parallelism =
                    f.size() > PARALLELISM_COLUMN
                            ? Integer.parseInt(f.get(PARALLELISM_COLUMN))
                            : new Settings().parallelism;
            RunSpec spec =
                    new RunSpec(
                            Scenario.parse(f.get(0)),
                            Mode.valueOf(f.get(1)),
                            Contender.valueOf(f.get(2)),
                            Backend.valueOf(f.get(3)),
                            Integer.parseInt(f.get(4)),
                            parallelism);
            RunResult r = new RunResult(spec);
            r.error = f.get(5).isEmpty() ? null : f.get(5);
            int i = 6;
            r.probeRows = Long.parseLong(f.get(i++));
            r.measuredSeconds = Double.parseDouble(f.get(i++));
            r.rate = Double.parseDouble(f.get(i++));
            r.rateFirstHalf = Double.parseDouble(f.get(i++));
            r.rateSecondHalf = Double.parseDouble(f.get(i++));
            r.timeBounded = Boolean.parseBoolean(f.get(i++));
            r.sinkRows = Long.parseLong(f.get(i++));
            r.sinkRetractions = Long.parseLong(f.get(i++));
            r.latencyCount = Long.parseLong(f.get(i++));
            r.p50 = Double.parseDouble(f.get(i++));
            r.p99 = Double.parseDouble(f.get(i++));
            r.p999 = Double.parseDouble(f.get(i++));
            r.maxLatency = Double.parseDouble(f.get(i++));
            r.stateSizeBytes = Long.parseLong(f.get(i++));
            r.checkpointsCompleted = Long.parseLong(f.get(i++));
            r.checkpointsFailed = Long.parseLong(f.get(i++));
            r.peakHeapUsed = Long.parseLong(f.get(i++));
            r.peakHeapAfterGc = Long.parseLong(f.get(i++));
            r.bufferedAtFlip = Long.parseLong(f.get(i++));
            r.loadPhaseSeconds = Double.parseDouble(f.get(i++));
            r.loadCheckpointsCompleted = Long.parseLong(f.get(i++));
            r.loadCheckpointsFailed = Long.parseLong(f.get(i++));
            r.drainMillis = Double.parseDouble(f.get(i++));
            r.drainRate = Double.parseDouble(f.get(i++));
            if (i < f.size()) {
                r.checkpointFailure = f.get(i).isEmpty() ? null : f.get(i);
            }
            // Results written before the column existed end here.
            if (++i < f.size()) {
                r.drainCheckpointsCompleted = Long.parseLong(f.get(i));
            }
            i = PARALLELISM_COLUMN + 1;
            if (i + 2 < f.size()) {
                r.joinSubtasks = Integer.parseInt(f.get(i++));
                r.maxJoinShare = Double.parseDouble(f.get(i++));
                r.joinedRate = Double.parseDouble(f.get(i));
            }
            results.add(r);
        }
        return results;
    }

    private static List<String> splitCsv(String line) {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (char c : line.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                fields.add(field.toString());
                field.setLength(0);
            } else {
                field.append(c);
            }
        }
        fields.add(field.toString());
        return fields;
    }

    // ---- aggregation ----

    /** The results of one scenario and mode. */
    static final class Cells {
        final List<RunResult> results;

        Cells(List<RunResult> all, String scenario, Mode mode) {
            this.results =
                    all.stream()
                            .filter(
                                    r ->
                                            r.ok()
                                                    && r.spec.scenario.name.equals(scenario)
                                                    && r.spec.mode == mode)
                            .collect(Collectors.toList());
        }

        boolean isEmpty() {
            return results.isEmpty();
        }

        /**
         * The runs of a contender. One that keeps no keyed state and ran on the heap only stands in
         * for RocksDB: the backend does not matter to it. One that keeps state and was left out on
         * RocksDB has no runs there.
         */
        List<RunResult> of(Contender c, Backend b) {
            List<RunResult> runs =
                    results.stream()
                            .filter(r -> r.spec.contender == c && r.spec.backend == b)
                            .collect(Collectors.toList());
            if (runs.isEmpty() && b == Backend.ROCKSDB && !c.usesState) {
                return of(c, Backend.HEAP);
            }
            return runs;
        }

        boolean heapStandIn(Contender c, Backend b) {
            return b == Backend.ROCKSDB
                    && !c.usesState
                    && results.stream().noneMatch(r -> r.spec.contender == c && r.spec.backend == b)
                    && !of(c, Backend.HEAP).isEmpty();
        }

        double median(Contender c, Backend b, ToDoubleFunction<RunResult> f) {
            return Report.median(
                    of(c, b).stream().map(r -> f.applyAsDouble(r)).collect(Collectors.toList()));
        }

        double min(Contender c, Backend b, ToDoubleFunction<RunResult> f) {
            return of(c, b).stream()
                    .mapToDouble(f)
                    .filter(v -> !Double.isNaN(v))
                    .min()
                    .orElse(Double.NaN);
        }

        double max(Contender c, Backend b, ToDoubleFunction<RunResult> f) {
            return of(c, b).stream()
                    .mapToDouble(f)
                    .filter(v -> !Double.isNaN(v))
                    .max()
                    .orElse(Double.NaN);
        }

        /** Median over rounds of rate(a on ba) / rate(b on bb), both from the same round. */
        double ratio(Contender a, Backend ba, Contender b, Backend bb) {
            return Report.median(ratios(a, ba, b, bb));
        }

        /** The per-round ratios of {@link #ratio}, in round order, for the console. */
        String roundRatios(Contender a, Backend ba, Contender b, Backend bb) {
            return ratios(a, ba, b, bb).stream()
                    .map(Report::ratio)
                    .collect(Collectors.joining(", "));
        }

        private List<Double> ratios(Contender a, Backend ba, Contender b, Backend bb) {
            Map<Integer, Double> as = byRound(a, ba);
            Map<Integer, Double> bs = byRound(b, bb);
            List<Double> ratios = new ArrayList<>();
            for (Map.Entry<Integer, Double> e : as.entrySet()) {
                Double other = bs.get(e.getKey());
                if (other != null && other > 0) {
                    ratios.add(e.getValue() / other);
                }
            }
            return ratios;
        }

        private Map<Integer, Double> byRound(Contender c, Backend b) {
            Map<Integer, Double> m = new LinkedHashMap<>();
            for (RunResult r : of(c, b)) {
                m.put(r.spec.round, r.rate);
            }
            return m;
        }

        List<Contender> contenders() {
            return results.stream()
                    .map(r -> r.spec.contender)
                    .distinct()
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    // ---- the report ----

    static void write(Settings settings, Meta meta, List<RunResult> results) throws IOException {
        Files.createDirectories(settings.docsDir);
        StringBuilder md = new StringBuilder();
        Properties p = meta.properties;
        Cells a = new Cells(results, "uniform-100k", Mode.THROUGHPUT);
        Cells d = new Cells(results, "uniform-100k", Mode.LATENCY);
        Cells e = new Cells(results, "uniform-100k", Mode.LOAD);
        Cells b = new Cells(results, "zipf-100k", Mode.THROUGHPUT);
        Cells c = new Cells(results, "uniform-1m", Mode.THROUGHPUT);

        md.append("# Enrichment benchmark: LATERAL SNAPSHOT against the joins users run today\n\n");
        md.append(
                "Generated by the benchmark command (below) from its own results; the analysis of"
                        + " the targets, the profiles and what remains is in"
                        + " [benchmarks-notes.md](benchmarks-notes.md). Each contender is one SQL"
                        + " statement over the same generated tables, run one after another in one"
                        + " JVM on an embedded Flink "
                        + p.getProperty("flink")
                        + " (MiniCluster, parallelism "
                        + p.getProperty("parallelism")
                        + ").\n\n");
        md.append("![throughput and latency](benchmarks.png)\n\n");

        md.append("## Run\n\n");
        md.append("```\n").append(COMMAND);
        String args = p.getProperty("args", "");
        if (!args.isBlank()) {
            md.append(" -Denrichment.args=\"").append(args).append('"');
        }
        md.append("\n```\n\n");
        md.append("| | |\n|---|---|\n");
        md.append("| started | ").append(meta.start.withNano(0)).append(" |\n");
        md.append("| duration | ")
                .append(String.format(Locale.ROOT, "%.1f min", meta.duration.toSeconds() / 60.0))
                .append(" |\n");
        md.append("| machine | ")
                .append(p.getProperty("cpus"))
                .append(" CPUs (")
                .append(p.getProperty("cpuModel"))
                .append("), ")
                .append(p.getProperty("memory"))
                .append(" RAM, ")
                .append(p.getProperty("os"))
                .append(" |\n");
        md.append("| Java | ").append(p.getProperty("java")).append(" |\n");
        md.append("| JVM | `").append(p.getProperty("jvmArgs")).append("` |\n");
        md.append("| Flink | ")
                .append(p.getProperty("flink"))
                .append(", embedded MiniCluster: 1 TaskManager, ")
                .append(p.getProperty("parallelism"))
                .append(" slots, managed memory ")
                .append(p.getProperty("managedMemory"))
                .append(
                        " (RocksDB), checkpoints every 10 s (aligned, exactly-once, full, to local"
                                + " files), `pipeline.object-reuse` ")
                .append(p.getProperty("objectReuse", "false"))
                .append(" |\n");
        List<Double> loads = new ArrayList<>(meta.loads);
        Collections.sort(loads);
        md.append("| 1-minute load average | ")
                .append(
                        String.format(
                                Locale.ROOT,
                                "%.2f before the run, %.2f after; at the start of each job: median %.2f, range %.2f .. %.2f",
                                meta.loadBefore,
                                meta.loadAfter,
                                median(loads),
                                loads.isEmpty() ? Double.NaN : loads.get(0),
                                loads.isEmpty() ? Double.NaN : loads.get(loads.size() - 1)))
                .append(" |\n");
        md.append("| throughput runs | ").append(p.getProperty("throughputRun")).append(" |\n");
        md.append("| latency runs | ")
                .append(p.getProperty("fixedRate"))
                .append(" probe rows/s, buffer timeout ")
                .append(p.getProperty("latencyBufferTimeoutMillis"))
                .append(" ms, ")
                .append(p.getProperty("latencyRun"))
                .append(" |\n");
        md.append("| load-phase runs | ").append(p.getProperty("loadRun")).append(" |\n\n");

        md.append("What the run covers (group: data, mode, rounds, contenders):\n\n");
        for (String g : p.getProperty("groups", "").split("\n")) {
            String[] f = g.split("\\|", -1);
            if (f.length < 7) {
                continue;
            }
            md.append("- **")
                    .append(f[0])
                    .append("** ")
                    .append(f[1])
                    .append(", ")
                    .append(f[2].toLowerCase(Locale.ROOT))
                    .append(", ")
                    .append(f[3])
                    .append(" rounds: ")
                    .append(f[4].replace(' ', ','))
                    .append(
                            f[5].isBlank()
                                    ? ""
                                    : " (" + f[5].replace(' ', ',') + " on the heap only)")
                    .append(" — ")
                    .append(f[6])
                    .append(".\n");
        }
        md.append(
                "\nP4 keeps no keyed state (its cache is a per-subtask hash map), so it runs on the"
                        + " heap only and its number stands in the RocksDB columns too (marked †)."
                        + " Every number is a median over the rounds; ratios are taken within a round"
                        + " (same data, same backend, same JVM, minutes apart) and the median of"
                        + " those is shown. Treat differences under ~15% as noise.\n\n");

        if (!a.isEmpty()) {
            md.append("## Throughput: uniform keys, 100k build keys\n\n");
            md.append(
                    "Probe rows per second in steady state (source-side count over the window after"
                            + " the warm-up). Latency here is under full load, so it includes"
                            + " queueing under backpressure; see the fixed-rate table for latency."
                            + " State: the full checkpoint taken at the end of the run. Heap: the"
                            + " largest heap occupancy right after a GC during the run (whole JVM).\n\n");
            for (Backend backend : Backend.values()) {
                throughputTable(md, a, backend);
            }
        }
        if (!d.isEmpty()) {
            md.append("## Latency at a fixed rate\n\n");
            md.append(
                    "Uniform keys, 100k build keys, "
                            + p.getProperty("fixedRate")
                            + " probe rows/s (below every contender's saturation), buffer timeout "
                            + p.getProperty("latencyBufferTimeoutMillis")
                            + " ms (Flink's default of 100 ms would put a 0-100 ms floor under"
                            + " every contender at this rate). End-to-end: stamped at the probe"
                            + " source, read at the sink.\n\n");
            md.append(
                    "| contender | heap p50 | heap p99 | heap p99.9 | RocksDB p50 | RocksDB p99 | RocksDB p99.9 |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|\n");
            for (Contender contender : d.contenders()) {
                md.append("| ").append(contender.label);
                for (Backend backend : Backend.values()) {
                    String mark = d.heapStandIn(contender, backend) ? " †" : "";
                    md.append(" | ")
                            .append(millis(d.median(contender, backend, r -> r.p50)))
                            .append(mark);
                    md.append(" | ")
                            .append(millis(d.median(contender, backend, r -> r.p99)))
                            .append(mark);
                    md.append(" | ")
                            .append(millis(d.median(contender, backend, r -> r.p999)))
                            .append(mark);
                }
                md.append(" |\n");
            }
            md.append('\n');
        }
        if (!e.isEmpty()) {
            md.append("## LATERAL SNAPSHOT's load phase\n\n");
            md.append(
                    "The build snapshot is loaded, the probe side emits its rows, which the join"
                            + " buffers, and the build side holds its watermark below"
                            + " `load_completed_time` ("
                            + p.getProperty("loadRun")
                            + ", so that periodic checkpoints fall into the load phase); then the watermark"
                            + " passes it, the join flips and drains the buffer. Flip: the first"
                            + " subtask reporting `currentPhase` = 1 (polled every 2 ms). Drain: from"
                            + " the flip to the arrival at the sink of the last buffered row. Steady:"
                            + " the probe rate after the drain, in the same run.\n\n");
            md.append(
                    "| variant | backend | buffered at flip | load phase | checkpoints in the load phase (completed / failed) | flip to last drained row | drain rate | steady rate after | drain / steady | failed checkpoints (whole run) |\n");
            md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (Contender contender : e.contenders()) {
                for (Backend backend : Backend.values()) {
                    if (e.of(contender, backend).isEmpty() || e.heapStandIn(contender, backend)) {
                        continue;
                    }
                    md.append("| ")
                            .append(contender.label)
                            .append(" | ")
                            .append(backend.label)
                            .append(" | ")
                            .append(
                                    String.format(
                                            Locale.ROOT,
                                            "%,.0f",
                                            e.median(contender, backend, r -> r.bufferedAtFlip)))
                            .append(" | ")
                            .append(
                                    String.format(
                                            Locale.ROOT,
                                            "%.1f s",
                                            e.median(contender, backend, r -> r.loadPhaseSeconds)))
                            .append(" | ")
                            .append(
                                    String.format(
                                            Locale.ROOT,
                                            "%.0f / %.0f",
                                            e.median(
                                                    contender,
                                                    backend,
                                                    r -> r.loadCheckpointsCompleted),
                                            e.max(
                                                    contender,
                                                    backend,
                                                    r -> r.loadCheckpointsFailed)))
                            .append(" | ")
                            .append(
                                    String.format(
                                            Locale.ROOT,
                                            "%.0f ms",
                                            e.median(contender, backend, r -> r.drainMillis)))
                            .append(" | ")
                            .append(rows(e.median(contender, backend, r -> r.drainRate)))
                            .append(" | ")
                            .append(rows(e.median(contender, backend, r -> r.rate)))
                            .append(" | ")
                            .append(ratio(e.median(contender, backend, r -> r.drainRate / r.rate)))
                            .append(" | ")
                            .append(
                                    String.format(
                                            Locale.ROOT,
                                            "%.0f",
                                            e.max(contender, backend, r -> r.checkpointsFailed)))
                            .append(" |\n");
                }
            }
            md.append('\n');
        }
        for (Object[] extra :
                new Object[][] {
                    {b, "Skewed keys (Zipf 0.99), 100k build keys"},
                    {c, "Uniform keys, 1M build keys"}
                }) {
            Cells cells = (Cells) extra[0];
            if (cells.isEmpty()) {
                continue;
            }
            md.append("## Throughput: ").append(extra[1]).append("\n\n");
            for (Backend backend : Backend.values()) {
                throughputTable(md, cells, backend);
            }
        }

        targets(md, a, d, e);
        String ratios = targetRatios(results);
        if (!ratios.isEmpty()) {
            md.append("Between the P5 variants and P1 (uniform keys, 100k build keys):\n\n")
                    .append(ratios)
                    .append('\n');
        }

        md.append("## Every run\n\n");
        md.append(
                "| run | probe rows | rows/s | first / second half | p50 / p99 | state | heap after GC | checkpoints ok / failed | note |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (RunResult r : results) {
            md.append("| ").append(r.spec.label()).append(" | ");
            if (!r.ok()) {
                md.append(" | | | | | | | failed: ")
                        .append(r.error.replace('|', '/'))
                        .append(" |\n");
                continue;
            }
            md.append(String.format(Locale.ROOT, "%,d", r.probeRows))
                    .append(" | ")
                    .append(rows(r.rate))
                    .append(" | ")
                    .append(rows(r.rateFirstHalf))
                    .append(" / ")
                    .append(rows(r.rateSecondHalf))
                    .append(" | ")
                    .append(millis(r.p50))
                    .append(" / ")
                    .append(millis(r.p99))
                    .append(" | ")
                    .append(bytes(r.stateSizeBytes))
                    .append(" | ")
                    .append(bytes(r.peakHeapAfterGc))
                    .append(" | ")
                    .append(r.checkpointsCompleted)
                    .append(" / ")
                    .append(r.checkpointsFailed)
                    .append(" | ")
                    .append(r.timeBounded ? "time-bounded" : "")
                    .append(
                            r.spec.mode == Mode.LOAD
                                    ? String.format(
                                            Locale.ROOT,
                                            "buffered %,d, drain %.0f ms",
                                            r.bufferedAtFlip,
                                            r.drainMillis)
                                    : "")
                    .append(
                            r.checkpointFailure == null
                                    ? ""
                                    : " " + r.checkpointFailure.replace('|', '/'))
                    .append(" |\n");
        }
        Files.writeString(
                settings.docsDir.resolve("benchmarks.md"), md.toString(), StandardCharsets.UTF_8);
        Chart.write(settings.docsDir.resolve("benchmarks.png"), a, d, b, c);
        System.out.println(
                "Wrote " + settings.docsDir.resolve("benchmarks.md") + " and benchmarks.png");
    }

    private static void throughputTable(StringBuilder md, Cells cells, Backend backend) {
        List<Contender> contenders = cells.contenders();
        boolean any =
                contenders.stream()
                        .anyMatch(
                                c ->
                                        !cells.of(c, backend).isEmpty()
                                                && !cells.heapStandIn(c, backend));
        if (!any) {
            return;
        }
        md.append("**").append(backend.label).append("**\n\n");
        md.append(
                "| contender | probe rows/s | range | x P0 | P5 upsert / this | P5 multiset / this | p50 / p99 under load | state at end | peak heap after GC | probe rows per run |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Contender c : contenders) {
            List<RunResult> runs = cells.of(c, backend);
            if (runs.isEmpty()) {
                continue;
            }
            boolean standIn = cells.heapStandIn(c, backend);
            Backend own = standIn ? Backend.HEAP : backend;
            String mark = standIn ? " †" : "";
            boolean timeBounded = runs.stream().anyMatch(r -> r.timeBounded);
            md.append("| ")
                    .append(c.label)
                    .append(mark)
                    .append(" | ")
                    .append(rows(cells.median(c, own, r -> r.rate)))
                    .append(" | ")
                    .append(rows(cells.min(c, own, r -> r.rate)))
                    .append(" .. ")
                    .append(rows(cells.max(c, own, r -> r.rate)))
                    .append(" | ")
                    .append(ratio(cells.ratio(c, own, Contender.P0, backend)))
                    .append(" | ")
                    .append(
                            c == Contender.P5U
                                    ? ""
                                    : ratio(cells.ratio(Contender.P5U, backend, c, own)))
                    .append(" | ")
                    .append(
                            c == Contender.P5M
                                    ? ""
                                    : ratio(cells.ratio(Contender.P5M, backend, c, own)))
                    .append(" | ")
                    .append(millis(cells.median(c, own, r -> r.p50)))
                    .append(" / ")
                    .append(millis(cells.median(c, own, r -> r.p99)))
                    .append(" | ")
                    .append(bytes((long) cells.median(c, own, r -> r.stateSizeBytes)))
                    .append(" | ")
                    .append(bytes((long) cells.median(c, own, r -> r.peakHeapAfterGc)))
                    .append(" | ")
                    .append(
                            String.format(
                                    Locale.ROOT,
                                    "%.1fM",
                                    cells.median(c, own, r -> r.probeRows) / 1e6))
                    .append(timeBounded ? " ‡" : "")
                    .append(" |\n");
        }
        md.append('\n');
        if (contenders.stream()
                .anyMatch(c -> cells.of(c, backend).stream().anyMatch(r -> r.timeBounded))) {
            md.append(
                    "‡ time-bounded: fewer than 10M probe rows within the run's time limit; the"
                            + " rate is measured over the steady window all the same.\n\n");
        }
    }

    private static void targets(StringBuilder md, Cells a, Cells d, Cells e) {
        if (a.isEmpty()) {
            return;
        }
        md.append("## Targets\n\n");
        md.append("Ratios are medians of within-round ratios (uniform keys, 100k build keys).\n\n");
        md.append("| target | P5 upsert | P5 multiset |\n|---|---|---|\n");
        Backend heap = Backend.HEAP;
        Backend rocks = Backend.ROCKSDB;
        target(md, "heap: >= 0.5x P0", 0.5, v -> a.ratio(v, heap, Contender.P0, heap));
        target(md, "heap: >= 1.2x P1", 1.2, v -> a.ratio(v, heap, Contender.P1, heap));
        target(md, "heap: >= 5x P2", 5, v -> a.ratio(v, heap, Contender.P2, heap));
        target(md, "heap: >= 5x P3", 5, v -> a.ratio(v, heap, Contender.P3, heap));
        if (!d.isEmpty()) {
            md.append("| heap: p99 latency < 50 ms (fixed rate) |");
            for (Contender v : List.of(Contender.P5U, Contender.P5M)) {
                double p99 = d.median(v, heap, r -> r.p99);
                targetCell(md, millis(p99), p99, p99 < 50_000);
            }
            md.append('\n');
        }
        md.append("| heap: p99 latency < 50 ms (full load) |");
        for (Contender v : List.of(Contender.P5U, Contender.P5M)) {
            double p99 = a.median(v, heap, r -> r.p99);
            targetCell(md, millis(p99), p99, p99 < 50_000);
        }
        md.append('\n');
        target(md, "RocksDB: >= 1x P1", 1, v -> a.ratio(v, rocks, Contender.P1, rocks));
        target(md, "RocksDB: >= 10x P2", 10, v -> a.ratio(v, rocks, Contender.P2, rocks));
        if (!e.isEmpty()) {
            for (Backend backend : Backend.values()) {
                md.append("| ")
                        .append(backend.label)
                        .append(": load-phase drain rate >= 0.5x steady rate |");
                for (Contender v : List.of(Contender.P5U, Contender.P5M)) {
                    double r = e.median(v, backend, x -> x.drainRate / x.rate);
                    targetCell(md, ratio(r), r, r >= 0.5);
                }
                md.append('\n');
            }
        }
        md.append("| no failed checkpoint (every P5 run) |");
        for (Contender v : List.of(Contender.P5U, Contender.P5M)) {
            long failed = 0;
            long runs = 0;
            for (Cells cells : List.of(a, d, e)) {
                for (RunResult r : cells.results) {
                    if (r.spec.contender == v) {
                        failed += r.checkpointsFailed;
                        runs++;
                    }
                }
            }
            targetCell(md, failed + " failed in " + runs + " runs", failed, failed == 0);
        }
        md.append("\n\n");
    }

    /**
     * The ratios between P1 and the P5 variants that the throughput targets set (uniform keys, 100k
     * build keys): medians of the per-round ratios, as a markdown table, with the ratio of every
     * round; empty when the results have none of group A.
     */
    static String targetRatios(List<RunResult> results) {
        Cells a = new Cells(results, "uniform-100k", Mode.THROUGHPUT);
        if (a.isEmpty()) {
            return "";
        }
        Object[][] rows = {
            {"P5 upsert / P1", Contender.P5U, Contender.P1, 1.1, 1.0},
            {"P5 multiset / P5 upsert", Contender.P5M, Contender.P5U, 0.95, 0.8},
            {"P5 upsert TTL / P5 upsert", Contender.P5UT, Contender.P5U, 0.9, 0.9},
            {"P5 multiset / P1", Contender.P5M, Contender.P1, Double.NaN, Double.NaN}
        };
        StringBuilder md = new StringBuilder();
        md.append("| ratio (median of the rounds) | heap | RocksDB | heap, per round |")
                .append(" RocksDB, per round |\n|---|---|---|---|---|\n");
        for (Object[] row : rows) {
            Contender num = (Contender) row[1];
            Contender den = (Contender) row[2];
            md.append("| ").append(row[0]).append(" |");
            for (Backend backend : Backend.values()) {
                double target = (Double) row[backend == Backend.HEAP ? 3 : 4];
                double r = a.ratio(num, backend, den, backend);
                md.append(' ').append(ratio(r));
                if (!Double.isNaN(target) && !Double.isNaN(r)) {
                    md.append(String.format(Locale.ROOT, " (target %.2fx: ", target))
                            .append(r >= target ? "met)" : "**missed**)");
                }
                md.append(" |");
            }
            for (Backend backend : Backend.values()) {
                md.append(' ').append(a.roundRatios(num, backend, den, backend)).append(" |");
            }
            md.append('\n');
        }
        return md.toString();
    }

    private static void target(
            StringBuilder md, String name, double threshold, Function<Contender, Double> ratio) {
        md.append("| ").append(name).append(" |");
        for (Contender v : List.of(Contender.P5U, Contender.P5M)) {
            double r = ratio.apply(v);
            targetCell(md, ratio(r), r, r >= threshold);
        }
        md.append('\n');
    }

    /** A cell of the targets table: the value as shown and, when it was measured, the verdict. */
    private static void targetCell(StringBuilder md, String shown, double value, boolean met) {
        md.append(' ').append(shown);
        if (!Double.isNaN(value)) {
            md.append(met ? " — met" : " — **missed**");
        }
        md.append(" |");
    }
}
