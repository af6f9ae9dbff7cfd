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

import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The results of {@code --plan=backlog-checkpoints} as markdown: for the job without and with an
 * interval during the backlog, how long the load phase lasted by the join's gauge, the checkpoints
 * that completed in it and what they wrote, and why the load phase ended (3: the backlog ended, as
 * the plan means it to); then the ratio of the load phase with the interval to the one without,
 * within each round.
 */
final class BacklogCheckpointsTable {

    /** The build table of the plan: a few million rows, whose load takes half a minute here. */
    static final String SCENARIO = "uniform-3m";

    private final List<RunResult> results;

    private BacklogCheckpointsTable(List<RunResult> results) {
        this.results =
                results.stream()
                        .filter(r -> r.ok() && r.spec.mode == Mode.CAUGHT_UP)
                        .collect(Collectors.toList());
    }

    /** The tables, or nothing when no run of the plan is among the results. */
    static String of(List<RunResult> results) {
        BacklogCheckpointsTable table = new BacklogCheckpointsTable(results);
        List<Integer> intervals = table.intervals();
        if (intervals.isEmpty()) {
            return "";
        }
        StringBuilder md = new StringBuilder();
        Format.header(
                md,
                "lrrrrrrrl",
                "interval during the backlog",
                "runs",
                "probe rows buffered",
                "load phase (median)",
                "range",
                "checkpoints completed in the load phase (median)",
                "range",
                "written by them (median)",
                "loadCompletedReason");
        for (int interval : intervals) {
            List<RunResult> runs = table.runs(interval);
            Format.row(
                    md,
                    interval == 0 ? "none" : interval + " s",
                    runs.size(),
                    String.format(Locale.ROOT, "%,.0f", Cells.median(runs, r -> r.bufferedAtFlip)),
                    seconds(Cells.median(runs, r -> r.loadPhaseGaugeMillis)),
                    range(runs, r -> r.loadPhaseGaugeMillis / 1e3, "%.1f s"),
                    String.format(
                            Locale.ROOT,
                            "%.0f",
                            Cells.median(runs, r -> r.loadCheckpointsCompleted)),
                    range(runs, r -> r.loadCheckpointsCompleted, "%.0f"),
                    Format.bytes((long) Cells.median(runs, r -> r.loadCheckpointedBytes)),
                    runs.stream()
                            .map(r -> String.valueOf(r.loadCompletedReason))
                            .collect(Collectors.joining(", ")));
        }
        if (intervals.size() == 2 && intervals.get(0) == 0) {
            List<Double> ratios =
                    Cells.withinRounds(
                            table.loadPhaseByRound(intervals.get(1)), table.loadPhaseByRound(0));
            if (!ratios.isEmpty()) {
                md.append('\n');
                Format.header(md, "lrrl", "load phase", "median", "range", "per round");
                Format.row(
                        md,
                        intervals.get(1) + " s during the backlog / none",
                        Format.ratio(Cells.median(ratios)),
                        Format.ratio(Collections.min(ratios))
                                + " .. "
                                + Format.ratio(Collections.max(ratios)),
                        ratios.stream().map(Format::ratio).collect(Collectors.joining(", ")));
            }
        }
        return md.toString();
    }

    private List<Integer> intervals() {
        return results.stream()
                .map(r -> r.spec.intervalDuringBacklogSeconds)
                .distinct()
                .sorted()
                .collect(Collectors.toList());
    }

    private List<RunResult> runs(int interval) {
        return results.stream()
                .filter(r -> r.spec.intervalDuringBacklogSeconds == interval)
                .collect(Collectors.toList());
    }

    private Map<Integer, Double> loadPhaseByRound(int interval) {
        Map<Integer, Double> millis = new TreeMap<>();
        for (RunResult r : runs(interval)) {
            millis.put(r.spec.round, (double) r.loadPhaseGaugeMillis);
        }
        return millis;
    }

    private static String seconds(double millis) {
        return String.format(Locale.ROOT, "%.1f s", millis / 1e3);
    }

    private static String range(
            List<RunResult> runs, ToDoubleFunction<RunResult> f, String format) {
        return String.format(Locale.ROOT, format, Cells.min(runs, f))
                + " .. "
                + String.format(Locale.ROOT, format, Cells.max(runs, f));
    }
}
