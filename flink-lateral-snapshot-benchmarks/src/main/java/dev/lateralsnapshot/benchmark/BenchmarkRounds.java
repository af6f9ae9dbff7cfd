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

package dev.lateralsnapshot.benchmark;

import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Runs the benchmarks the way this noisy 2-core machine needs: in rounds, each configuration in its
 * own JMH fork, the order rotated every round so no contender always runs first or last, and prints
 * medians and ranges over the rounds, with the operator/bare-loop ratio taken within each round.
 *
 * <p>{@code java -cp benchmarks.jar dev.lateralsnapshot.benchmark.BenchmarkRounds [probeRounds
 * [buildChangeRounds]]}, by default 3 and 2. Forks, heap and iteration counts come from the
 * annotations of the benchmarks.
 */
public final class BenchmarkRounds {

    private static final String[] OUTPUTS = {"COPY", "READ"};
    private static final String[] LAYOUTS = {"MULTISET", "ONE_ROW_PER_KEY"};
    private static final String[] SCENARIOS = {
        "UPDATES_ONE_KEY",
        "UPDATES_ONE_KEY_ONE_WATERMARK",
        "INSERTS_ONE_KEY_SAME_TIME",
        "INSERTS_SPREAD"
    };
    private static final int[] CHANGES = {250_000, 500_000, 1_000_000};

    /** One JMH run: a benchmark method with fixed parameters. */
    private static final class Config {
        final String method;
        final Map<String, String> params = new LinkedHashMap<>();

        Config(String method, String... keyValues) {
            this.method = method;
            for (int i = 0; i < keyValues.length; i += 2) {
                params.put(keyValues[i], keyValues[i + 1]);
            }
        }

        @Override
        public String toString() {
            return method.substring(method.lastIndexOf('.', method.lastIndexOf('.') - 1) + 1)
                    + " "
                    + params;
        }
    }

    private BenchmarkRounds() {}

    public static void main(String[] args) throws Exception {
        int probeRounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int buildRounds = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        long start = System.nanoTime();

        List<Config> probeConfigs = new ArrayList<>();
        for (String output : OUTPUTS) {
            probeConfigs.add(
                    new Config(ProbeBenchmark.class.getName() + ".bareLoop", "output", output));
            for (String layout : LAYOUTS) {
                probeConfigs.add(
                        new Config(
                                ProbeBenchmark.class.getName() + ".operator",
                                "output",
                                output,
                                "layout",
                                layout));
            }
        }
        List<Config> buildConfigs = new ArrayList<>();
        for (String scenario : SCENARIOS) {
            for (int changes : CHANGES) {
                buildConfigs.add(
                        new Config(
                                BuildChangeBenchmark.class.getName() + ".apply",
                                "scenario",
                                scenario,
                                "changes",
                                String.valueOf(changes),
                                "layout",
                                "MULTISET"));
            }
        }

        Map<Config, List<double[]>> probe = runRounds(probeConfigs, probeRounds);
        Map<Config, List<double[]>> build = runRounds(buildConfigs, buildRounds);

        System.out.println();
        printProbe(probeConfigs, probe);
        System.out.println();
        printBuild(buildConfigs, build);
        System.out.printf(
                Locale.ROOT, "%nTotal time: %.1f min%n", (System.nanoTime() - start) / 60e9);
    }

    /** Per configuration, per round: the scores of the measured iterations. */
    private static Map<Config, List<double[]>> runRounds(List<Config> configs, int rounds)
            throws Exception {
        Map<Config, List<double[]>> scores = new LinkedHashMap<>();
        for (Config config : configs) {
            scores.put(config, new ArrayList<>());
        }
        for (int round = 0; round < rounds; round++) {
            List<Config> order = new ArrayList<>(configs);
            Collections.rotate(order, -round * Math.max(1, configs.size() / rounds));
            for (Config config : order) {
                double[] iterations = run(config);
                scores.get(config).add(iterations);
                System.out.printf(
                        Locale.ROOT, "round %d  %-85s %s%n", round + 1, config, format(iterations));
            }
        }
        return scores;
    }

    private static double[] run(Config config) throws Exception {
        ChainedOptionsBuilder options =
                new OptionsBuilder()
                        .include("^" + Pattern.quote(config.method) + "$")
                        .forks(1)
                        .shouldFailOnError(true)
                        .verbosity(VerboseMode.SILENT);
        config.params.forEach(options::param);
        Collection<RunResult> results = new Runner(options.build()).run();
        if (results.size() != 1) {
            throw new IllegalStateException(config + " ran " + results.size() + " times");
        }
        Collection<IterationResult> iterations =
                results.iterator()
                        .next()
                        .getBenchmarkResults()
                        .iterator()
                        .next()
                        .getIterationResults();
        return iterations.stream().mapToDouble(r -> r.getPrimaryResult().getScore()).toArray();
    }

    // ---- probe report ----

    private static void printProbe(List<Config> configs, Map<Config, List<double[]>> scores) {
        System.out.println(
                "Probe throughput, rows/s (per round: mean of the measured iterations);"
                        + " median [min .. max] over rounds");
        System.out.println();
        System.out.println(
                "| output | contender | rows/s median | range | ratio bare/operator median | ratio range |");
        System.out.println("|---|---|---:|---:|---:|---:|");
        for (String output : OUTPUTS) {
            Config bare = find(configs, "bareLoop", output, null);
            double[] bareRounds = roundMeans(scores.get(bare));
            System.out.printf(
                    Locale.ROOT,
                    "| %s | bare HashMap loop | %s | %s | | |%n",
                    output,
                    rate(median(bareRounds)),
                    rateRange(bareRounds));
            for (String layout : LAYOUTS) {
                double[] operatorRounds =
                        roundMeans(scores.get(find(configs, "operator", output, layout)));
                double[] ratios = new double[operatorRounds.length];
                for (int r = 0; r < ratios.length; r++) {
                    ratios[r] = bareRounds[r] / operatorRounds[r];
                }
                System.out.printf(
                        Locale.ROOT,
                        "| %s | operator, %s | %s | %s | %.2f | %.2f .. %.2f |%n",
                        output,
                        layout,
                        rate(median(operatorRounds)),
                        rateRange(operatorRounds),
                        median(ratios),
                        min(ratios),
                        max(ratios));
            }
        }
    }

    private static Config find(List<Config> configs, String method, String output, String layout) {
        for (Config config : configs) {
            if (config.method.endsWith("." + method)
                    && output.equals(config.params.get("output"))
                    && (layout == null || layout.equals(config.params.get("layout")))) {
                return config;
            }
        }
        throw new IllegalArgumentException(method + " " + output + " " + layout);
    }

    // ---- build change report ----

    private static void printBuild(List<Config> configs, Map<Config, List<double[]>> scores) {
        System.out.println(
                "Build changes, ns per change (every measured shot of every round);"
                        + " median [min .. max]");
        System.out.println();
        StringBuilder header = new StringBuilder("| scenario (MULTISET) |");
        StringBuilder rule = new StringBuilder("|---|");
        for (int changes : CHANGES) {
            header.append(String.format(Locale.ROOT, " %,d |", changes));
            rule.append("---:|");
        }
        System.out.println(header.append(" 1M / 250k |"));
        System.out.println(rule.append("---:|"));
        for (String scenario : SCENARIOS) {
            StringBuilder line = new StringBuilder("| " + scenario + " |");
            double first = 0;
            double last = 0;
            for (int changes : CHANGES) {
                double[] perChange = null;
                for (Config config : configs) {
                    if (scenario.equals(config.params.get("scenario"))
                            && String.valueOf(changes).equals(config.params.get("changes"))) {
                        perChange =
                                scores.get(config).stream()
                                        .flatMapToDouble(Arrays::stream)
                                        .map(millis -> millis * 1e6 / changes)
                                        .toArray();
                    }
                }
                double median = median(perChange);
                first = first == 0 ? median : first;
                last = median;
                line.append(
                        String.format(
                                Locale.ROOT,
                                " %.0f [%.0f .. %.0f] |",
                                median,
                                min(perChange),
                                max(perChange)));
            }
            System.out.println(line.append(String.format(Locale.ROOT, " %.2f |", last / first)));
        }
    }

    // ---- numbers ----

    private static double[] roundMeans(List<double[]> rounds) {
        return rounds.stream().mapToDouble(r -> Arrays.stream(r).average().orElseThrow()).toArray();
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static double min(double[] values) {
        return Arrays.stream(values).min().orElseThrow();
    }

    private static double max(double[] values) {
        return Arrays.stream(values).max().orElseThrow();
    }

    private static String rate(double rowsPerSecond) {
        return String.format(Locale.ROOT, "%.2fM", rowsPerSecond / 1e6);
    }

    private static String rateRange(double[] values) {
        return rate(min(values)) + " .. " + rate(max(values));
    }

    private static String format(double[] iterations) {
        StringBuilder text = new StringBuilder();
        for (double score : iterations) {
            text.append(String.format(Locale.ROOT, " %.4g", score));
        }
        return text.toString().trim();
    }
}
