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

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The results of {@code --plan=scale} as markdown: every run with the time from the job's
 * submission to its last joined row and where it went (the build rows per second, LATERAL
 * SNAPSHOT's load phase, drain and the join phase after it), memory, state and checkpoints; then
 * the ratio of LATERAL SNAPSHOT's time to the regular join's within each round, its drain against
 * its join phase in the same run, its build rows per second against the processing-time temporal
 * table function join's, and the cost per row at every size and how it grows from the smallest to
 * the largest.
 */
final class ScaleTable {

    /** The group letter of every size of the plan, for {@code --only}. */
    static final String GROUP = "K";

    /**
     * Heap per key assumed for a heap run when no smaller run of the same contender has measured
     * it: a build row and a probe row in the heap backend's state, with room for G1 to work. It
     * only keeps a first run at a new size from filling the benchmark's JVM.
     */
    private static final long ASSUMED_HEAP_BYTES_PER_KEY = 1024;

    /** The share of the JVM's heap that a heap run's state may be expected to take. */
    private static final double HEAP_SHARE = 0.75;

    private ScaleTable() {}

    static String scenario(int keys) {
        return "uniform-" + (keys % 1_000_000 == 0 ? keys / 1_000_000 + "m" : String.valueOf(keys));
    }

    /**
     * Why a heap run is left out, or null to run it: when its state would not fit in the JVM's
     * heap, estimated from the peak heap after GC per key of the same contender's heap runs at
     * smaller sizes. The job runs in the benchmark's own JVM, so a heap that fills up would end the
     * whole benchmark, not just the run.
     */
    static String heapSkip(RunSpec spec, List<RunResult> done, long maxHeap) {
        if (spec.mode != Mode.SCALE || spec.backend != Backend.HEAP) {
            return null;
        }
        int keys = spec.scenario.buildKeys;
        double perKey =
                done.stream()
                        .filter(r -> r.ok() && r.spec.mode == Mode.SCALE)
                        .filter(r -> r.spec.backend == Backend.HEAP)
                        .filter(r -> r.spec.contender == spec.contender)
                        .filter(r -> r.spec.scenario.buildKeys < keys)
                        .mapToDouble(r -> (double) r.peakHeapAfterGc / r.spec.scenario.buildKeys)
                        .max()
                        .orElse(ASSUMED_HEAP_BYTES_PER_KEY);
        long estimate = (long) (perKey * keys);
        if (estimate <= HEAP_SHARE * maxHeap) {
            return null;
        }
        return String.format(
                Locale.ROOT,
                "skipped: %,d keys need about %s of heap (%.0f bytes per key), more than %.0f%% of"
                        + " the JVM's %s",
                keys,
                Format.bytes(estimate),
                perKey,
                HEAP_SHARE * 100,
                Format.bytes(maxHeap));
    }

    /** The tables, or nothing when no run of the plan is among the results. */
    static String of(List<RunResult> all) {
        List<RunResult> runs =
                all.stream().filter(r -> r.spec.mode == Mode.SCALE).collect(Collectors.toList());
        if (runs.isEmpty()) {
            return "";
        }
        StringBuilder md = new StringBuilder();
        Format.header(
                md,
                "rllrrrrrrrrrrrrrlr",
                "keys",
                "backend",
                "contender",
                "round",
                "to last joined row",
                "µs per row",
                "build rows/s",
                "load phase",
                "buffered at flip",
                "drain",
                "drain rows/s",
                "join phase rows/s",
                "peak heap after GC",
                "state (checkpoint)",
                "on disk",
                "checkpoints before last row",
                "written, longest",
                "restore");
        List<String> notes = new ArrayList<>();
        for (RunResult r : runs) {
            if (!r.ok()) {
                notes.add(r.spec.label() + ": " + r.error);
                continue;
            }
            boolean flips = r.spec.flips();
            Format.row(
                    md,
                    String.format(Locale.ROOT, "%,d", r.spec.scenario.buildKeys),
                    r.spec.backend.label,
                    r.spec.contender.label,
                    r.spec.round,
                    String.format(Locale.ROOT, "%.1f s", r.lastRowSeconds),
                    String.format(Locale.ROOT, "%.1f", costPerRow(r)),
                    Format.rows(r.buildRowsPerSecond),
                    flips
                            ? String.format(Locale.ROOT, "%.1f s", r.loadPhaseGaugeMillis / 1e3)
                            : "-",
                    flips ? String.format(Locale.ROOT, "%,d", r.bufferedAtFlip) : "-",
                    flips ? String.format(Locale.ROOT, "%.1f s", r.drainMillis / 1e3) : "-",
                    flips ? Format.rows(r.drainRate) : "-",
                    flips ? Format.rows(r.rate) : "-",
                    Format.bytes(r.peakHeapAfterGc),
                    Format.bytes(r.stateSizeBytes),
                    Format.bytes(r.localStateBytes),
                    r.scaleCheckpointsCompleted,
                    Format.bytes(r.scaleCheckpointedBytes)
                            + ", "
                            + r.scaleCheckpointMaxMillis
                            + " ms",
                    r.restoreSeconds >= 0
                            ? String.format(Locale.ROOT, "%.1f s", r.restoreSeconds)
                            : "-");
        }
        ratios(md, runs);
        drains(md, runs);
        buildRates(md, runs);
        growth(md, runs);
        if (!notes.isEmpty()) {
            md.append('\n');
            for (String note : notes) {
                md.append("- ").append(note).append('\n');
            }
        }
        return md.toString();
    }

    /** Microseconds from the job's submission to its last joined row, per build key. */
    private static double costPerRow(RunResult r) {
        return r.lastRowSeconds * 1e6 / r.spec.scenario.buildKeys;
    }

    /**
     * Time to the last joined row of one contender over another's, round by round: LATERAL SNAPSHOT
     * over the regular join, and over an upsert source without over with Flink's
     * ChangelogNormalize.
     */
    private static void ratios(StringBuilder md, List<RunResult> runs) {
        List<Contender[]> pairs =
                List.of(
                        new Contender[] {Contender.P5U, Contender.P3},
                        new Contender[] {Contender.P5S, Contender.P5SN});
        StringBuilder rows = new StringBuilder();
        for (int keys : sizes(runs)) {
            for (Backend backend : Backend.values()) {
                for (Contender[] pair : pairs) {
                    List<Double> ratios =
                            Cells.withinRounds(
                                    byRound(runs, keys, backend, pair[0]),
                                    byRound(runs, keys, backend, pair[1]));
                    if (ratios.isEmpty()) {
                        continue;
                    }
                    double median = Cells.median(ratios);
                    Format.row(
                            rows,
                            String.format(Locale.ROOT, "%,d", keys),
                            backend.label,
                            pair[0].label + " / " + pair[1].label,
                            Format.ratio(median),
                            Format.ratio(1 / median),
                            ratios.stream().map(Format::ratio).collect(Collectors.joining(", ")));
                }
            }
        }
        // A run of one contender has nothing to compare.
        table(
                md,
                rows,
                "rllrrl",
                "keys",
                "backend",
                "compared",
                "time ratio, median",
                "speed ratio",
                "per round");
    }

    /**
     * LATERAL SNAPSHOT's drain against its join phase after it, in the same run: the probe rows per
     * second of the buffered backlog at the flip over those of the new probe rows that follow it,
     * on the same state, so that the machine's load at the time weighs on both.
     */
    private static void drains(StringBuilder md, List<RunResult> runs) {
        StringBuilder rows = new StringBuilder();
        for (int keys : sizes(runs)) {
            for (Backend backend : Backend.values()) {
                for (Contender contender : Contender.values()) {
                    if (!contender.isSnapshot()) {
                        continue;
                    }
                    Map<Integer, Double> drain =
                            byRound(runs, keys, backend, contender, r -> r.drainRate);
                    Map<Integer, Double> joinPhase =
                            byRound(runs, keys, backend, contender, r -> r.rate);
                    List<Double> ratios = Cells.withinRounds(drain, joinPhase);
                    if (ratios.isEmpty()) {
                        continue;
                    }
                    List<Object> cells =
                            new ArrayList<>(
                                    List.of(
                                            String.format(Locale.ROOT, "%,d", keys),
                                            backend.label,
                                            contender.label));
                    cells.addAll(rates(drain, joinPhase, ratios));
                    Format.row(rows, cells.toArray());
                }
            }
        }
        table(
                md,
                rows,
                "rllrrrl",
                "keys",
                "backend",
                "contender",
                "drain rows/s, median",
                "join phase rows/s, median",
                "drain / join phase, median",
                "per round");
    }

    /**
     * The build rows per second of LATERAL SNAPSHOT's load over those of the processing-time
     * temporal table function join, which puts every build row into its state as it arrives and
     * joins the probe rows against whatever is there: the rate at which a join can take in a build
     * side at all, with the same probe backlog arriving meanwhile.
     */
    private static void buildRates(StringBuilder md, List<RunResult> runs) {
        StringBuilder rows = new StringBuilder();
        for (int keys : sizes(runs)) {
            for (Backend backend : Backend.values()) {
                Map<Integer, Double> snapshot =
                        byRound(runs, keys, backend, Contender.P5U, r -> r.buildRowsPerSecond);
                Map<Integer, Double> ttf =
                        byRound(runs, keys, backend, Contender.P1, r -> r.buildRowsPerSecond);
                List<Double> ratios = Cells.withinRounds(snapshot, ttf);
                if (ratios.isEmpty()) {
                    continue;
                }
                List<Object> cells =
                        new ArrayList<>(
                                List.of(String.format(Locale.ROOT, "%,d", keys), backend.label));
                cells.addAll(rates(snapshot, ttf, ratios));
                Format.row(rows, cells.toArray());
            }
        }
        table(
                md,
                rows,
                "rlrrrl",
                "keys",
                "backend",
                Contender.P5U.label + " build rows/s, median",
                Contender.P1.label + " build rows/s, median",
                "ratio, median",
                "per round");
    }

    /**
     * The cells of two rates compared round by round: the median of each, the median of their
     * ratios within the rounds, and those ratios.
     */
    private static List<String> rates(
            Map<Integer, Double> numerators,
            Map<Integer, Double> denominators,
            List<Double> ratios) {
        return List.of(
                Format.rows(Cells.median(new ArrayList<>(numerators.values()))),
                Format.rows(Cells.median(new ArrayList<>(denominators.values()))),
                Format.ratio(Cells.median(ratios)),
                ratios.stream().map(Format::ratio).collect(Collectors.joining(", ")));
    }

    /** A table of the rows under its header, or nothing where it has no rows. */
    private static void table(
            StringBuilder md, StringBuilder rows, String alignment, String... names) {
        if (rows.length() == 0) {
            return;
        }
        md.append('\n');
        Format.header(md, alignment, names);
        md.append(rows);
    }

    /** The median cost per row at every size, and the largest size's over the smallest's. */
    private static void growth(StringBuilder md, List<RunResult> runs) {
        List<Integer> sizes = sizes(runs);
        if (sizes.size() < 2) {
            return;
        }
        md.append('\n');
        List<String> names = new ArrayList<>(List.of("contender", "backend"));
        StringBuilder alignment = new StringBuilder("ll");
        for (int keys : sizes) {
            names.add(String.format(Locale.ROOT, "µs per row at %,d", keys));
            alignment.append('r');
        }
        names.add("cost per row at the largest / at the smallest");
        alignment.append('r');
        Format.header(md, alignment.toString(), names.toArray(new String[0]));
        for (Contender contender : List.of(Contender.P5U, Contender.P3, Contender.P1)) {
            for (Backend backend : Backend.values()) {
                List<Object> cells = new ArrayList<>(List.of(contender.label, backend.label));
                double smallest = Double.NaN;
                double largest = Double.NaN;
                for (int keys : sizes) {
                    double cost =
                            Cells.median(
                                    new ArrayList<>(
                                            byRound(runs, keys, backend, contender).values()));
                    cells.add(Double.isNaN(cost) ? "-" : String.format(Locale.ROOT, "%.1f", cost));
                    if (keys == sizes.get(0)) {
                        smallest = cost;
                    }
                    if (keys == sizes.get(sizes.size() - 1)) {
                        largest = cost;
                    }
                }
                cells.add(Format.ratio(largest / smallest));
                Format.row(md, cells.toArray());
            }
        }
    }

    private static List<Integer> sizes(List<RunResult> runs) {
        return runs.stream()
                .map(r -> r.spec.scenario.buildKeys)
                .distinct()
                .sorted()
                .collect(Collectors.toList());
    }

    /** The cost per row of one contender's successful runs at one size, by round. */
    private static Map<Integer, Double> byRound(
            List<RunResult> runs, int keys, Backend backend, Contender contender) {
        return byRound(runs, keys, backend, contender, ScaleTable::costPerRow);
    }

    /** One figure of one contender's successful runs at one size, by round. */
    private static Map<Integer, Double> byRound(
            List<RunResult> runs,
            int keys,
            Backend backend,
            Contender contender,
            ToDoubleFunction<RunResult> figure) {
        Map<Integer, Double> values = new TreeMap<>();
        for (RunResult r : runs) {
            if (r.ok()
                    && r.spec.scenario.buildKeys == keys
                    && r.spec.backend == backend
                    && r.spec.contender == contender) {
                values.put(r.spec.round, figure.applyAsDouble(r));
            }
        }
        return values;
    }
}
