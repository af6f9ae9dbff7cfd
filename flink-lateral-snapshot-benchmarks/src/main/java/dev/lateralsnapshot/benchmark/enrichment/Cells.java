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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The successful runs of one data scenario in one mode, and what the report and the chart show of
 * them: medians over the rounds, and ratios taken within a round. A round runs every contender
 * minutes apart in the same JVM, so the load of a shared machine, which drifts over a run of an
 * hour, weighs on both sides of a ratio alike; the median of the rounds then leaves out an odd
 * round rather than averaging it in.
 */
final class Cells {

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
     * The runs of a contender. One that keeps no keyed state and ran on the heap only stands in for
     * RocksDB: the backend does not matter to it. One that keeps state and was left out on RocksDB
     * has no runs there.
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
        return median(of(c, b), f);
    }

    double min(Contender c, Backend b, ToDoubleFunction<RunResult> f) {
        return min(of(c, b), f);
    }

    double max(Contender c, Backend b, ToDoubleFunction<RunResult> f) {
        return max(of(c, b), f);
    }

    /** Median over rounds of rate(a on ba) / rate(b on bb), both from the same round. */
    double ratio(Contender a, Backend ba, Contender b, Backend bb) {
        return median(ratios(a, ba, b, bb));
    }

    /**
     * The per-round ratios of {@link #ratio}, in round order, to show how far the rounds spread.
     */
    String roundRatios(Contender a, Backend ba, Contender b, Backend bb) {
        return ratios(a, ba, b, bb).stream().map(Format::ratio).collect(Collectors.joining(", "));
    }

    private List<Double> ratios(Contender a, Backend ba, Contender b, Backend bb) {
        return withinRounds(byRound(a, ba), byRound(b, bb));
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

    /**
     * The median of the values that were measured: a run leaves NaN where it measured nothing (the
     * drain of a run that had no load phase, for one), and that is no value to take a median of.
     */
    static double median(List<Double> values) {
        List<Double> sorted =
                values.stream().filter(v -> !Double.isNaN(v)).sorted().collect(Collectors.toList());
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /**
     * The ratio of two rates of every round that has both, in the order of the numerators' rounds;
     * a round whose denominator is not positive has no ratio.
     */
    static List<Double> withinRounds(
            Map<Integer, Double> numerators, Map<Integer, Double> denominators) {
        List<Double> ratios = new ArrayList<>();
        for (Map.Entry<Integer, Double> e : numerators.entrySet()) {
            Double other = denominators.get(e.getKey());
            if (other != null && other > 0) {
                ratios.add(e.getValue() / other);
            }
        }
        return ratios;
    }

    static double median(List<RunResult> runs, ToDoubleFunction<RunResult> f) {
        return median(runs.stream().map(f::applyAsDouble).collect(Collectors.toList()));
    }

    static double min(List<RunResult> runs, ToDoubleFunction<RunResult> f) {
        return runs.stream().mapToDouble(f).filter(v -> !Double.isNaN(v)).min().orElse(Double.NaN);
    }

    static double max(List<RunResult> runs, ToDoubleFunction<RunResult> f) {
        return runs.stream().mapToDouble(f).filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN);
    }
}
