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

import java.util.Locale;
import java.util.Properties;

/**
 * The section "LATERAL SNAPSHOT's load phase": for each P5 variant and backend, the rows buffered
 * at the flip, how long the load phase lasted and the checkpoints taken in it, then the drain of
 * the buffer after the flip against the steady rate after the drain. Values are medians over the
 * rounds, except failed checkpoints, which are the most of any one run, so that a single failure
 * shows. The drain is compared with the steady rate of the same run, so that the load of the
 * machine at the time weighs on both sides of the ratio.
 */
final class LoadPhaseSection {

    private LoadPhaseSection() {}

    static void write(StringBuilder md, Cells cells, Properties meta) {
        md.append("## LATERAL SNAPSHOT's load phase\n\n").append(phases(meta));
        Format.header(
                md,
                "llrrrrrrrr",
                "variant",
                "backend",
                "buffered at flip",
                "load phase",
                "checkpoints in the load phase (completed / failed)",
                "flip to last drained row",
                "drain rate",
                "steady rate after",
                "drain / steady",
                "failed checkpoints (whole run)");
        for (Contender c : cells.contenders()) {
            for (Backend b : Backend.values()) {
                if (cells.of(c, b).isEmpty() || cells.heapStandIn(c, b)) {
                    continue;
                }
                Format.row(
                        md,
                        c.label,
                        b.label,
                        String.format(
                                Locale.ROOT, "%,.0f", cells.median(c, b, r -> r.bufferedAtFlip)),
                        String.format(
                                Locale.ROOT, "%.1f s", cells.median(c, b, r -> r.loadPhaseSeconds)),
                        String.format(
                                Locale.ROOT,
                                "%.0f / %.0f",
                                cells.median(c, b, r -> r.loadCheckpointsCompleted),
                                cells.max(c, b, r -> r.loadCheckpointsFailed)),
                        String.format(
                                Locale.ROOT, "%.0f ms", cells.median(c, b, r -> r.drainMillis)),
                        Format.rows(cells.median(c, b, r -> r.drainRate)),
                        Format.rows(cells.median(c, b, r -> r.rate)),
                        Format.ratio(cells.median(c, b, r -> r.drainRate / r.rate)),
                        String.format(
                                Locale.ROOT, "%.0f", cells.max(c, b, r -> r.checkpointsFailed)));
            }
        }
        md.append('\n');
    }

    private static String phases(Properties meta) {
        return "The build snapshot is loaded, the probe side emits its rows, which the join"
                + " buffers, and the build side holds its watermark below"
                + " `load_completed_time` ("
                + meta.getProperty("loadRun")
                + ", so that periodic checkpoints fall into the load phase); then the watermark"
                + " passes it, the join flips and drains the buffer. Flip: the first"
                + " subtask reporting `currentPhase` = 1 (polled every 2 ms). Drain: from"
                + " the flip to the arrival at the sink of the last buffered row. Steady:"
                + " the probe rate after the drain, in the same run.\n\n";
    }
}
