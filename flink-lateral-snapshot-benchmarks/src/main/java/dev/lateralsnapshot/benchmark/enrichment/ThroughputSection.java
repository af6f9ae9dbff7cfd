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

import java.util.List;
import java.util.Locale;

/**
 * The throughput sections of docs/benchmarks.md, one a data set and in it a table a backend: each
 * contender's probe rows per second, its ratios to P0 and to the two P5 variants, latency under
 * full load, state and heap. Values are medians over the rounds and ratios are medians of the
 * ratios within a round ({@link Cells}). P4 keeps no keyed state and runs on the heap only; its
 * heap runs stand in for RocksDB, marked †, so that the RocksDB table still compares with it. A run
 * that reached its time limit before 10M probe rows is marked ‡: its rate is measured over the
 * steady window all the same, but over fewer rows.
 */
final class ThroughputSection {

    /** What the columns measure, said once, in the first section: the main comparison. */
    private static final String MEASURES =
            "Probe rows per second in steady state (source-side count over the window after"
                    + " the warm-up). Latency here is under full load, so it includes"
                    + " queueing under backpressure; see the fixed-rate table for latency."
                    + " State: the full checkpoint taken at the end of the run. Heap: the"
                    + " largest heap occupancy right after a GC during the run (whole JVM).\n\n";

    private ThroughputSection() {}

    /** The section of the main comparison: uniform keys, 100k build keys. */
    static void writeMain(StringBuilder md, Cells cells) {
        write(md, "uniform keys, 100k build keys", MEASURES, cells);
    }

    /** The section of another data set, which only repeats the main comparison's tables. */
    static void write(StringBuilder md, String title, Cells cells) {
        write(md, title, "", cells);
    }

    private static void write(StringBuilder md, String title, String intro, Cells cells) {
        md.append("## Throughput: ").append(title).append("\n\n").append(intro);
        for (Backend backend : Backend.HEAP_AND_ROCKSDB) {
            table(md, cells, backend);
        }
    }

    private static void table(StringBuilder md, Cells cells, Backend backend) {
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
        Format.header(
                md,
                "lrrrrrrrrr",
                "contender",
                "probe rows/s",
                "range",
                "x P0",
                "P5 upsert / this",
                "P5 multiset / this",
                "p50 / p99 under load",
                "state at end",
                "peak heap after GC",
                "probe rows per run");
        for (Contender c : contenders) {
            List<RunResult> runs = cells.of(c, backend);
            if (runs.isEmpty()) {
                continue;
            }
            boolean standIn = cells.heapStandIn(c, backend);
            Backend own = standIn ? Backend.HEAP : backend;
            boolean timeBounded = runs.stream().anyMatch(r -> r.timeBounded);
            Format.row(
                    md,
                    c.label + (standIn ? " †" : ""),
                    Format.rows(cells.median(c, own, r -> r.rate)),
                    Format.rows(cells.min(c, own, r -> r.rate))
                            + " .. "
                            + Format.rows(cells.max(c, own, r -> r.rate)),
                    Format.ratio(cells.ratio(c, own, Contender.P0, backend)),
                    variantOver(cells, Contender.P5U, backend, c, own),
                    variantOver(cells, Contender.P5M, backend, c, own),
                    Format.millis(cells.median(c, own, r -> r.p50))
                            + " / "
                            + Format.millis(cells.median(c, own, r -> r.p99)),
                    Format.bytes((long) cells.median(c, own, r -> r.stateSizeBytes)),
                    Format.bytes((long) cells.median(c, own, r -> r.peakHeapAfterGc)),
                    String.format(
                                    Locale.ROOT,
                                    "%.1fM",
                                    cells.median(c, own, r -> r.probeRows) / 1e6)
                            + (timeBounded ? " ‡" : ""));
        }
        md.append('\n');
        if (contenders.stream()
                .anyMatch(c -> cells.of(c, backend).stream().anyMatch(r -> r.timeBounded))) {
            md.append(
                    "‡ time-bounded: fewer than 10M probe rows within the run's time limit; the"
                            + " rate is measured over the steady window all the same.\n\n");
        }
    }

    /** The ratio of a P5 variant to contender c; empty in the variant's own row. */
    private static String variantOver(
            Cells cells, Contender variant, Backend backend, Contender c, Backend own) {
        return c == variant ? "" : Format.ratio(cells.ratio(variant, backend, c, own));
    }
}
