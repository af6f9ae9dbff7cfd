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
        Format.header(
                md,
                "llrrrrrrrr",
                "keys",
                "contender",
                "parallelism",
                "join subtasks",
                "probe rows joined/s (median)",
                "range",
                "probe rows emitted/s (median)",
                "largest share on one join subtask (median)",
                "range",
                "sink rows / probe rows");
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
            boolean snapshot = contender.isSnapshot();
            Format.row(
                    md,
                    keys(scenario),
                    contender.label,
                    parallelism,
                    snapshot ? subtasks(runs) : "",
                    Format.rows(Cells.median(runs, r -> r.joinedRate)),
                    Format.rows(Cells.min(runs, r -> r.joinedRate))
                            + " .. "
                            + Format.rows(Cells.max(runs, r -> r.joinedRate)),
                    Format.rows(Cells.median(runs, r -> r.rate)),
                    snapshot ? percent(Cells.median(runs, r -> r.maxJoinShare)) : "",
                    snapshot
                            ? percent(Cells.min(runs, r -> r.maxJoinShare))
                                    + " .. "
                                    + percent(Cells.max(runs, r -> r.maxJoinShare))
                            : "",
                    String.format(
                            Locale.ROOT,
                            "%.3f",
                            Cells.median(runs, r -> (double) r.sinkRows / r.probeRows)));
        }
        return md.toString();
    }

    private String ratiosTable() {
        StringBuilder md = new StringBuilder();
        Format.header(md, "lrll", "comparison", "median", "per round", "target");
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
            double share = Cells.median(runs, r -> r.maxJoinShare);
            Format.row(
                    md,
                    "largest share on one subtask, broadcast, Zipf s = 1.2, parallelism "
                            + parallelism,
                    percent(share),
                    runs.stream()
                            .map(r -> percent(r.maxJoinShare))
                            .collect(Collectors.joining(", ")),
                    String.format(
                                    Locale.ROOT,
                                    "within %.0f points of %s: ",
                                    EVEN_SHARE_TOLERANCE * 100,
                                    percent(even))
                            + (Math.abs(share - even) <= EVEN_SHARE_TOLERANCE
                                    ? "met"
                                    : "**missed**"));
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
        List<Double> ratios =
                Cells.withinRounds(
                        byRound(scenario, parallelism, numerator),
                        byRound(scenario, parallelism, denominator));
        if (ratios.isEmpty()) {
            return;
        }
        double median = Cells.median(ratios);
        Format.row(
                md,
                name,
                Format.ratio(median),
                ratios.stream().map(Format::ratio).collect(Collectors.joining(", ")),
                Double.isNaN(target)
                        ? ""
                        : String.format(Locale.ROOT, "%.2fx: ", target)
                                + (median >= target ? "met" : "**missed**"));
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
}
