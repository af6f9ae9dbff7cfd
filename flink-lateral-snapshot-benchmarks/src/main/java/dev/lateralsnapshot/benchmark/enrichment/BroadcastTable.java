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

import dev.lateralsnapshot.benchmark.enrichment.RunSpec.Mode;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The results of {@code --plan=broadcast} as markdown: every contender's throughput and largest
 * share of probe rows on one join subtask, then the ratios of the broadcast build side, each the
 * median of the ratios within a round. Throughput here is {@link RunResult#joinedRate}, the probe
 * rows that came out of the join per second: the range join on one subtask falls behind its
 * sources, which then go on at a rate the join does not reach.
 */
final class BroadcastTable {

    static final String UNIFORM = "uniform-100k";
    static final String ZIPF = "zipf12-100k";
    static final String BANDS = "uniform-1k";

    /** Off by at most this much from 1 / parallelism, the broadcast join's probe rows are even. */
    static final double EVEN_SHARE_TOLERANCE = 0.02;

    private final List<RunResult> results;

    private BroadcastTable(List<RunResult> results) {
        this.results =
                results.stream()
                        .filter(r -> r.ok() && r.spec.mode == Mode.THROUGHPUT)
                        .collect(Collectors.toList());
    }

    /** The tables, or nothing when no run of the broadcast plan is among the results. */
    static String of(List<RunResult> results) {
        BroadcastTable table = new BroadcastTable(results);
        if (table.runs(UNIFORM, 2, Contender.P5UB).isEmpty()
                && table.runs(ZIPF, 2, Contender.P5UB).isEmpty()
                && table.runs(BANDS, 2, Contender.P5RB).isEmpty()) {
            return "";
        }
        return table.runsTable() + "\n" + table.ratiosTable();
    }

    private String runsTable() {
        StringBuilder md = new StringBuilder();
        md.append("| keys | contender | parallelism | join subtasks | probe rows joined/s")
                .append(" (median) | range | probe rows emitted/s (median) |")
                .append(" largest share on one join subtask (median) | range |")
                .append(" sink rows / probe rows |\n")
                .append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        Object[][] rows = {
            {UNIFORM, 2, Contender.P1},
            {UNIFORM, 2, Contender.P4},
            {UNIFORM, 2, Contender.P5U},
            {UNIFORM, 2, Contender.P5UB},
            {ZIPF, 2, Contender.P5U},
            {ZIPF, 2, Contender.P5UB},
            {ZIPF, 4, Contender.P5U},
            {ZIPF, 4, Contender.P5UB},
            {BANDS, 2, Contender.P5R},
            {BANDS, 2, Contender.P5RB}
        };
        for (Object[] row : rows) {
            String scenario = (String) row[0];
            int parallelism = (Integer) row[1];
            Contender contender = (Contender) row[2];
            List<RunResult> runs = runs(scenario, parallelism, contender);
            if (runs.isEmpty()) {
                continue;
            }
            md.append("| ")
                    .append(keys(scenario))
                    .append(" | ")
                    .append(contender.label)
                    .append(" | ")
                    .append(parallelism)
                    .append(" | ")
                    .append(contender.isSnapshot() ? subtasks(runs) : "")
                    .append(" | ")
                    .append(Format.rows(median(runs, r -> r.joinedRate)))
                    .append(" | ")
                    .append(Format.rows(min(runs, r -> r.joinedRate)))
                    .append(" .. ")
                    .append(Format.rows(max(runs, r -> r.joinedRate)))
                    .append(" | ")
                    .append(Format.rows(median(runs, r -> r.rate)))
                    .append(" | ");
            if (contender.isSnapshot()) {
                md.append(percent(median(runs, r -> r.maxJoinShare)))
                        .append(" | ")
                        .append(percent(min(runs, r -> r.maxJoinShare)))
                        .append(" .. ")
                        .append(percent(max(runs, r -> r.maxJoinShare)));
            } else {
                md.append(" | ");
            }
            md.append(" | ")
                    .append(
                            String.format(
                                    Locale.ROOT,
                                    "%.3f",
                                    median(runs, r -> (double) r.sinkRows / r.probeRows)))
                    .append(" |\n");
        }
        return md.toString();
    }

    private String ratiosTable() {
        StringBuilder md = new StringBuilder();
        md.append("| comparison | median | per round | target |\n|---|---:|---|---|\n");
        ratio(
                md,
                "P5 upsert broadcast / P1, uniform keys",
                UNIFORM,
                2,
                Contender.P5UB,
                Contender.P1,
                1.2);
        ratio(
                md,
                "P5 upsert broadcast / P4, uniform keys",
                UNIFORM,
                2,
                Contender.P5UB,
                Contender.P4,
                1.0);
        ratio(
                md,
                "P5 upsert broadcast / hash, uniform keys",
                UNIFORM,
                2,
                Contender.P5UB,
                Contender.P5U,
                Double.NaN);
        for (int parallelism : new int[] {2, 4}) {
            ratio(
                    md,
                    "P5 upsert broadcast / hash, Zipf s = 1.2, parallelism " + parallelism,
                    ZIPF,
                    parallelism,
                    Contender.P5UB,
                    Contender.P5U,
                    Double.NaN);
        }
        ratio(
                md,
                "P5 range broadcast (parallelism 2) / hash (join at parallelism 1), 1,000 bands",
                BANDS,
                2,
                Contender.P5RB,
                Contender.P5R,
                Double.NaN);
        for (int parallelism : new int[] {2, 4}) {
            List<RunResult> runs = runs(ZIPF, parallelism, Contender.P5UB);
            if (runs.isEmpty()) {
                continue;
            }
            double even = 1.0 / parallelism;
            double share = median(runs, r -> r.maxJoinShare);
            md.append("| largest share on one subtask, broadcast, Zipf s = 1.2, parallelism ")
                    .append(parallelism)
                    .append(" | ")
                    .append(percent(share))
                    .append(" | ")
                    .append(
                            runs.stream()
                                    .map(r -> percent(r.maxJoinShare))
                                    .collect(Collectors.joining(", ")))
                    .append(" | ")
                    .append(
                            String.format(
                                    Locale.ROOT,
                                    "within %.0f points of %s: ",
                                    EVEN_SHARE_TOLERANCE * 100,
                                    percent(even)))
                    .append(Math.abs(share - even) <= EVEN_SHARE_TOLERANCE ? "met" : "**missed**")
                    .append(" |\n");
        }
        return md.toString();
    }

    private void ratio(
            StringBuilder md,
            String name,
            String scenario,
            int parallelism,
            Contender numerator,
            Contender denominator,
            double target) {
        Map<Integer, Double> as = byRound(scenario, parallelism, numerator);
        Map<Integer, Double> bs = byRound(scenario, parallelism, denominator);
        List<Double> ratios = new ArrayList<>();
        for (Map.Entry<Integer, Double> e : as.entrySet()) {
            Double other = bs.get(e.getKey());
            if (other != null && other > 0) {
                ratios.add(e.getValue() / other);
            }
        }
        if (ratios.isEmpty()) {
            return;
        }
        double median = Cells.median(ratios);
        md.append("| ")
                .append(name)
                .append(" | ")
                .append(Format.ratio(median))
                .append(" | ")
                .append(ratios.stream().map(Format::ratio).collect(Collectors.joining(", ")))
                .append(" | ");
        if (!Double.isNaN(target)) {
            md.append(String.format(Locale.ROOT, "%.2fx: ", target))
                    .append(median >= target ? "met" : "**missed**");
        }
        md.append(" |\n");
    }

    private List<RunResult> runs(String scenario, int parallelism, Contender contender) {
        return results.stream()
                .filter(r -> r.spec.scenario.name.equals(scenario))
                .filter(r -> r.spec.parallelism == parallelism)
                .filter(r -> r.spec.contender == contender)
                .collect(Collectors.toList());
    }

    private Map<Integer, Double> byRound(String scenario, int parallelism, Contender contender) {
        Map<Integer, Double> rates = new TreeMap<>();
        for (RunResult r : runs(scenario, parallelism, contender)) {
            rates.put(r.spec.round, r.joinedRate);
        }
        return rates;
    }

    private static String keys(String scenario) {
        switch (scenario) {
            case UNIFORM:
                return "uniform, 100k build keys";
            case ZIPF:
                return "Zipf s = 1.2, 100k build keys";
            case BANDS:
                return "range over 1,000 bands";
            default:
                return scenario;
        }
    }

    private static String subtasks(List<RunResult> runs) {
        return runs.stream()
                .map(r -> String.valueOf(r.joinSubtasks))
                .distinct()
                .collect(Collectors.joining(", "));
    }

    private static String percent(double share) {
        return Double.isNaN(share) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", share * 100);
    }

    private static double median(
            List<RunResult> runs, java.util.function.ToDoubleFunction<RunResult> f) {
        return Cells.median(runs.stream().map(f::applyAsDouble).collect(Collectors.toList()));
    }

    private static double min(
            List<RunResult> runs, java.util.function.ToDoubleFunction<RunResult> f) {
        return runs.stream().mapToDouble(f).filter(v -> !Double.isNaN(v)).min().orElse(Double.NaN);
    }

    private static double max(
            List<RunResult> runs, java.util.function.ToDoubleFunction<RunResult> f) {
        return runs.stream().mapToDouble(f).filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN);
    }
}
