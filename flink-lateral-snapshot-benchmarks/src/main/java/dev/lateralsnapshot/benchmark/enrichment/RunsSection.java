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

import java.util.List;
import java.util.Locale;

/**
 * The section "Every run": a line a run, in the order they ran, failed runs with their error, so
 * that every median and ratio above can be checked against the runs it comes from, and a round that
 * a busy machine slowed down shows as such. A '|' would end a table cell, so an error or the cause
 * of a failed checkpoint shows it as '/'.
 */
final class RunsSection {

    private RunsSection() {}

    static void write(StringBuilder md, List<RunResult> results) {
        md.append("## Every run\n\n");
        Format.header(
                md,
                "lrrrrrrrl",
                "run",
                "probe rows",
                "rows/s",
                "first / second half",
                "p50 / p99",
                "state",
                "heap after GC",
                "checkpoints ok / failed",
                "note");
        for (RunResult r : results) {
            if (!r.ok()) {
                // A failed run measured nothing: its error stands in the note.
                md.append("| ")
                        .append(r.spec.label())
                        .append(" |  | | | | | | | failed: ")
                        .append(r.error.replace('|', '/'))
                        .append(" |\n");
                continue;
            }
            Format.row(
                    md,
                    r.spec.label(),
                    String.format(Locale.ROOT, "%,d", r.probeRows),
                    Format.rows(r.rate),
                    Format.rows(r.rateFirstHalf) + " / " + Format.rows(r.rateSecondHalf),
                    Format.millis(r.p50) + " / " + Format.millis(r.p99),
                    Format.bytes(r.stateSizeBytes),
                    Format.bytes(r.peakHeapAfterGc),
                    r.checkpointsCompleted + " / " + r.checkpointsFailed,
                    note(r));
        }
    }

    private static String note(RunResult r) {
        return (r.timeBounded ? "time-bounded" : "")
                + (r.spec.mode.holdsLoadPhase()
                        ? String.format(
                                Locale.ROOT,
                                "buffered %,d, drain %.0f ms",
                                r.bufferedAtFlip,
                                r.drainMillis)
                        : "")
                + (r.checkpointFailure == null ? "" : " " + r.checkpointFailure.replace('|', '/'));
    }
}
