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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * The section "Scale: load-dominated runs" of docs/benchmarks.md, written by {@code --plan=scale}
 * from its own results. A scale run takes most of an hour, the default run another, so each
 * rewrites its own part of the page: this section in place, and the default run the rest around it.
 */
final class ScaleSection {

    static final String HEADING = "## Scale: load-dominated runs";

    private ScaleSection() {}

    /** Replaces the section in the page, or appends it where the page has none. */
    static void write(Path page, Settings settings, RunMeta meta, List<RunResult> results)
            throws IOException {
        String table = ScaleTable.of(results);
        if (table.isEmpty()) {
            return;
        }
        StringBuilder md = new StringBuilder();
        md.append(HEADING).append("\n\n");
        md.append(
                String.format(
                        "Written by `%s -Denrichment.args=\"%s\"`, which ran on %s for %.1f minutes at a"
                                + " 1-minute load average of %.2f before, %.2f to %.2f at the"
                                + " starts of its jobs and %.2f after, on %d cores. Each run is a"
                                + " job that starts from scratch: N build keys, one row each with a"
                                + " time in the past, and N probe rows over the same keys that"
                                + " arrive while the build side loads; P5 upsert ends its load"
                                + " phase when the build source has emitted its snapshot"
                                + " (`load-completed-on-caught-up`), P3 is the regular LEFT join"
                                + " over the same data, and P1 the processing-time temporal table"
                                + " function join, which takes in the build side as it arrives;"
                                + " parallelism 2, a checkpoint every %d s, incremental on"
                                + " RocksDB and ForSt."
                                + " The time is from the job's submission to its last joined row"
                                + " at the sink. Once P5's backlog is out, its probe source goes on"
                                + " for %d s: the join phase, whose rate over its last %d s the"
                                + " drain is compared with."
                                + " `docs/benchmarks-notes.md` (\"Scale:"
                                + " load-dominated runs\") says what every column measures and"
                                + " where the time goes.\n\n",
                        RunSection.COMMAND,
                        String.join(" ", settings.rawArgs),
                        meta.start.format(DateTimeFormatter.ISO_LOCAL_DATE),
                        meta.duration.toSeconds() / 60.0,
                        meta.loadBefore,
                        meta.loads.stream().mapToDouble(Double::doubleValue).min().orElse(0),
                        meta.loads.stream().mapToDouble(Double::doubleValue).max().orElse(0),
                        meta.loadAfter,
                        Runtime.getRuntime().availableProcessors(),
                        settings.checkpointIntervalSeconds,
                        settings.postDrainWarmupSeconds + settings.postFlipSeconds,
                        settings.postFlipSeconds));
        md.append(table);
        String old = Files.exists(page) ? Files.readString(page, StandardCharsets.UTF_8) : "";
        Files.writeString(page, replace(old, md.toString()), StandardCharsets.UTF_8);
    }

    /** The section as the page has it, with its heading; empty where it has none. */
    static String of(String page) {
        int start = start(page);
        return start < 0 ? "" : page.substring(start, end(page, start));
    }

    /** The page with the section replaced, or appended where it has none. */
    static String replace(String page, String section) {
        String body = section.endsWith("\n") ? section : section + "\n";
        int start = start(page);
        if (start < 0) {
            return page.isEmpty() || page.endsWith("\n\n")
                    ? page + body
                    : page + (page.endsWith("\n") ? "\n" : "\n\n") + body;
        }
        int end = end(page, start);
        String rest = page.substring(end);
        return page.substring(0, start) + body + (rest.isEmpty() ? "" : "\n" + rest);
    }

    private static int start(String page) {
        if (page.startsWith(HEADING + "\n")) {
            return 0;
        }
        int at = page.indexOf("\n" + HEADING + "\n");
        return at < 0 ? -1 : at + 1;
    }

    /** Where the next section of the same level starts, or the page ends. */
    private static int end(String page, int start) {
        int next = page.indexOf("\n## ", start + HEADING.length());
        return next < 0 ? page.length() : next + 1;
    }
}
