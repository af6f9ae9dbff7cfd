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

import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The section "Targets": whether P5 upsert and P5 multiset meet the targets that
 * docs/benchmarks-notes.md discusses, then the ratios between the P5 variants and P1 that its
 * section "The targets" sets, with the ratio of every round. A throughput target is judged on the
 * median of the ratios within a round (uniform keys, 100k build keys), like every ratio of the
 * report ({@link Cells}); the per-round ratios stand beside it because on a shared machine one
 * round can fall either side of a target. The ratios table is also what a run that has group A
 * prints at its end.
 */
final class TargetsSection {

    /** p99 latency under this, in microseconds, meets the latency targets. */
    private static final double P99_TARGET_MICROS = 50_000;

    /** A ratio of throughputs within a round, and the least that meets it on each backend. */
    private record Ratio(
            String name,
            Contender numerator,
            Contender denominator,
            double heapTarget,
            double rocksDbTarget) {}

    private static final List<Ratio> RATIOS =
            List.of(
                    new Ratio("P5 upsert / P1", Contender.P5U, Contender.P1, 1.1, 1.0),
                    new Ratio("P5 multiset / P5 upsert", Contender.P5M, Contender.P5U, 0.95, 0.8),
                    new Ratio("P5 upsert TTL / P5 upsert", Contender.P5UT, Contender.P5U, 0.9, 0.9),
                    new Ratio(
                            "P5 multiset / P1",
                            Contender.P5M,
                            Contender.P1,
                            Double.NaN,
                            Double.NaN));

    private TargetsSection() {}

    /**
     * @param a throughput, uniform keys, 100k build keys
     * @param d latency at a fixed rate, the same data
     * @param e the load phase, the same data
     */
    static void write(StringBuilder md, Cells a, Cells d, Cells e) {
        Backend heap = Backend.HEAP;
        Backend rocks = Backend.ROCKSDB;
        md.append("## Targets\n\n");
        md.append("Ratios are medians of within-round ratios (uniform keys, 100k build keys).\n\n");
        Format.header(md, "lll", "target", "P5 upsert", "P5 multiset");
        atLeast(md, "heap: >= 0.5x P0", 0.5, v -> a.ratio(v, heap, Contender.P0, heap));
        atLeast(md, "heap: >= 1.2x P1", 1.2, v -> a.ratio(v, heap, Contender.P1, heap));
        atLeast(md, "heap: >= 5x P2", 5, v -> a.ratio(v, heap, Contender.P2, heap));
        atLeast(md, "heap: >= 5x P3", 5, v -> a.ratio(v, heap, Contender.P3, heap));
        if (!d.isEmpty()) {
            p99(md, "heap: p99 latency < 50 ms (fixed rate)", d);
        }
        p99(md, "heap: p99 latency < 50 ms (full load)", a);
        atLeast(md, "RocksDB: >= 1x P1", 1, v -> a.ratio(v, rocks, Contender.P1, rocks));
        atLeast(md, "RocksDB: >= 10x P2", 10, v -> a.ratio(v, rocks, Contender.P2, rocks));
        if (!e.isEmpty()) {
            ToDoubleFunction<RunResult> drainOverSteady = r -> r.drainRate / r.rate;
            for (Backend backend : Backend.HEAP_AND_ROCKSDB) {
                atLeast(
                        md,
                        backend.label + ": load-phase drain rate >= 0.5x steady rate",
                        0.5,
                        v -> e.median(v, backend, drainOverSteady));
            }
        }
        row(
                md,
                "no failed checkpoint (every P5 run)",
                v -> {
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
                    return verdict(failed + " failed in " + runs + " runs", failed, failed == 0);
                });
        md.append('\n');
        md.append("Between the P5 variants and P1 (uniform keys, 100k build keys):\n\n")
                .append(ratios(a))
                .append('\n');
    }

    /**
     * The ratios between P1 and the P5 variants that the throughput targets set, as a markdown
     * table: the median of the per-round ratios, and the ratio of every round; empty when the
     * results have no throughput run on uniform keys and 100k build keys (group A).
     */
    static String ratios(List<RunResult> results) {
        Cells a = new Cells(results, "uniform-100k", Mode.THROUGHPUT);
        return a.isEmpty() ? "" : ratios(a);
    }

    private static String ratios(Cells a) {
        StringBuilder md = new StringBuilder();
        Format.header(
                md,
                "lllll",
                "ratio (median of the rounds)",
                "heap",
                "RocksDB",
                "heap, per round",
                "RocksDB, per round");
        for (Ratio ratio : RATIOS) {
            Format.row(
                    md,
                    ratio.name(),
                    median(a, ratio, Backend.HEAP, ratio.heapTarget()),
                    median(a, ratio, Backend.ROCKSDB, ratio.rocksDbTarget()),
                    a.roundRatios(
                            ratio.numerator(), Backend.HEAP, ratio.denominator(), Backend.HEAP),
                    a.roundRatios(
                            ratio.numerator(),
                            Backend.ROCKSDB,
                            ratio.denominator(),
                            Backend.ROCKSDB));
        }
        return md.toString();
    }

    /** The median of a ratio's rounds on one backend and, where it has a target, the verdict. */
    private static String median(Cells a, Ratio ratio, Backend backend, double target) {
        double r = a.ratio(ratio.numerator(), backend, ratio.denominator(), backend);
        String shown = Format.ratio(r);
        if (Double.isNaN(target) || Double.isNaN(r)) {
            return shown;
        }
        return shown
                + String.format(Locale.ROOT, " (target %.2fx: ", target)
                + (r >= target ? "met)" : "**missed**)");
    }

    private static void atLeast(
            StringBuilder md, String target, double least, Function<Contender, Double> ratio) {
        row(
                md,
                target,
                v -> {
                    double r = ratio.apply(v);
                    return verdict(Format.ratio(r), r, r >= least);
                });
    }

    private static void p99(StringBuilder md, String target, Cells cells) {
        row(
                md,
                target,
                v -> {
                    double p99 = cells.median(v, Backend.HEAP, r -> r.p99);
                    return verdict(Format.millis(p99), p99, p99 < P99_TARGET_MICROS);
                });
    }

    /** A line of the targets table: the target, then its cell for P5 upsert and P5 multiset. */
    private static void row(StringBuilder md, String target, Function<Contender, String> cell) {
        Format.row(md, target, cell.apply(Contender.P5U), cell.apply(Contender.P5M));
    }

    /** A cell of the targets table: the value as shown and, when it was measured, the verdict. */
    private static String verdict(String shown, double value, boolean met) {
        return Double.isNaN(value) ? shown : shown + (met ? " — met" : " — **missed**");
    }
}
