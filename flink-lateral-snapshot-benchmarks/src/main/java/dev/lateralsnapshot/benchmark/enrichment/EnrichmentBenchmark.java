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
import dev.lateralsnapshot.benchmark.enrichment.RunSpec.Scenario;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The enrichment benchmark: the LATERAL SNAPSHOT join against the joins users run today, over the
 * same generated data, one job after another in one JVM on an embedded Flink. See {@code README.md}
 * of this module and {@code docs/benchmarks.md}.
 *
 * <p>Options ({@code --name=value}): {@code
 * --plan=default|quick|targets|broadcast|backlog-checkpoints|scale|upsert-source|datagen|report},
 * {@code --rounds=N} (all groups), {@code --only=TOKENS} (comma-separated; a run is kept when, for
 * each kind of token given, it matches one: group letters A-K, contenders P0..P5RB, backends
 * heap/rocksdb, modes throughput/latency/load/caught_up/scale), and the knobs of {@link Settings}.
 */
public final class EnrichmentBenchmark {

    /** A group of runs: one scenario and mode, the contenders and backends, the rounds. */
    static final class Group {
        final String id;
        final Scenario scenario;
        final Mode mode;
        final List<Contender> contenders;
        final Set<Contender> heapOnly;
        final int rounds;
        final String why;

        /** The parallelism of its jobs; 0 for the one of the settings. */
        final int parallelism;

        /** The backends its stateful contenders run on. */
        final List<Backend> backends;

        /** The intervals during the backlog that each run is made with, in seconds; 0 for none. */
        final List<Integer> intervalsDuringBacklog;

        Group(
                String id,
                String scenario,
                Mode mode,
                List<Contender> contenders,
                Set<Contender> heapOnly,
                int rounds,
                String why) {
            this(id, scenario, mode, contenders, heapOnly, rounds, why, 0);
        }

        Group(
                String id,
                String scenario,
                Mode mode,
                List<Contender> contenders,
                Set<Contender> heapOnly,
                int rounds,
                String why,
                int parallelism) {
            this(
                    id,
                    scenario,
                    mode,
                    contenders,
                    heapOnly,
                    rounds,
                    why,
                    parallelism,
                    Backend.HEAP_AND_ROCKSDB,
                    List.of(0));
        }

        Group(
                String id,
                String scenario,
                Mode mode,
                List<Contender> contenders,
                Set<Contender> heapOnly,
                int rounds,
                String why,
                int parallelism,
                List<Backend> backends,
                List<Integer> intervalsDuringBacklog) {
            this.parallelism = parallelism;
            this.backends = backends;
            this.intervalsDuringBacklog = intervalsDuringBacklog;
            this.id = id;
            this.scenario = Scenario.parse(scenario);
            this.mode = mode;
            this.contenders = contenders;
            this.heapOnly = heapOnly;
            this.rounds = rounds;
            this.why = why;
        }

        /** The runs of one round, in the round's rotated order. */
        List<RunSpec> round(int round, Settings settings) {
            List<RunSpec> specs = new ArrayList<>();
            for (Contender contender : contenders) {
                for (Backend backend : backends) {
                    boolean stateless = !contender.usesState || heapOnly.contains(contender);
                    if (backend != Backend.HEAP && stateless) {
                        continue;
                    }
                    for (int intervalDuringBacklog : intervalsDuringBacklog) {
                        RunSpec spec =
                                new RunSpec(
                                        scenario,
                                        mode,
                                        contender,
                                        backend,
                                        round,
                                        parallelism(settings),
                                        intervalDuringBacklog);
                        if (selected(spec, settings)) {
                            specs.add(spec);
                        }
                    }
                }
            }
            if (specs.isEmpty()) {
                return specs;
            }
            int shift = (round - 1) * Math.max(1, specs.size() / Math.max(1, rounds));
            shift %= specs.size();
            List<RunSpec> rotated = new ArrayList<>(specs.subList(shift, specs.size()));
            rotated.addAll(specs.subList(0, shift));
            // Reversed, two runs would be back in the order of the round before.
            if (round % 2 == 0 && rotated.size() > 2) {
                java.util.Collections.reverse(rotated);
            }
            return rotated;
        }

        int parallelism(Settings settings) {
            return parallelism > 0 ? parallelism : settings.parallelism;
        }

        boolean selected(RunSpec spec, Settings settings) {
            List<String> groups = new ArrayList<>();
            List<String> contenders = new ArrayList<>();
            List<String> backends = new ArrayList<>();
            List<String> modes = new ArrayList<>();
            for (String token : settings.only) {
                String t = token.toUpperCase();
                if (t.matches("[A-Z]")) {
                    groups.add(t);
                } else if (t.matches("P[0-9][A-Z]*")) {
                    contenders.add(t);
                } else if (t.equals("HEAP") || t.equals("ROCKSDB") || t.equals("FORST")) {
                    backends.add(t);
                } else {
                    modes.add(t);
                }
            }
            return (groups.isEmpty() || groups.contains(id))
                    && (contenders.isEmpty() || contenders.contains(spec.contender.name()))
                    && (backends.isEmpty() || backends.contains(spec.backend.name()))
                    && (modes.isEmpty() || modes.contains(spec.mode.name()));
        }
    }

    /** The contenders of the comparison with the joins users run today (groups A and D). */
    static final List<Contender> ALL =
            Arrays.stream(Contender.values())
                    .filter(c -> !c.broadcast() && c != Contender.P5R)
                    .collect(Collectors.toList());

    /** Every contender but the TTL variant of P5 upsert, which only group A compares. */
    static final List<Contender> WITHOUT_TTL =
            ALL.stream().filter(c -> c != Contender.P5UT).collect(Collectors.toList());

    /** What the broadcast build side is compared with on uniform keys. */
    static final List<Contender> BROADCAST_UNIFORM =
            List.of(Contender.P1, Contender.P4, Contender.P5U, Contender.P5UB);

    static final List<Contender> BROADCAST_SKEW = List.of(Contender.P5U, Contender.P5UB);

    static final List<Contender> BROADCAST_RANGE = List.of(Contender.P5R, Contender.P5RB);

    /** What the throughput targets compare: P1 and the three P5 variants. */
    static final List<Contender> TARGETS =
            List.of(Contender.P1, Contender.P5U, Contender.P5M, Contender.P5UT);

    static final List<Contender> CORE =
            List.of(
                    Contender.P0,
                    Contender.P1,
                    Contender.P2,
                    Contender.P3,
                    Contender.P5U,
                    Contender.P5M);

    static List<Group> plan(Settings settings) {
        int r3 = settings.rounds > 0 ? settings.rounds : 3;
        int r2 = settings.rounds > 0 ? settings.rounds : 2;
        switch (settings.plan) {
            case "default":
                return List.of(
                        new Group(
                                "A",
                                "uniform-100k",
                                Mode.THROUGHPUT,
                                ALL,
                                Set.of(),
                                r3,
                                "every contender on both backends: the main comparison"),
                        new Group(
                                "E",
                                "uniform-100k",
                                Mode.LOAD,
                                List.of(Contender.P5U, Contender.P5M),
                                Set.of(),
                                r2,
                                "LATERAL SNAPSHOT's load phase: 1M buffered probe rows, the flip,"
                                        + " the drain, checkpoints while loading"),
                        new Group(
                                "D",
                                "uniform-100k",
                                Mode.LATENCY,
                                WITHOUT_TTL,
                                Set.of(),
                                r2,
                                "latency at a fixed rate below every contender's saturation"),
                        new Group(
                                "B",
                                "zipf-100k",
                                Mode.THROUGHPUT,
                                CORE,
                                Set.of(Contender.P2, Contender.P3),
                                r2,
                                "skewed keys; P2 and P3 on the heap only, to keep the run short"),
                        new Group(
                                "C",
                                "uniform-1m",
                                Mode.THROUGHPUT,
                                CORE,
                                Set.of(Contender.P2, Contender.P3),
                                r2,
                                "10x the build keys; P2 and P3 on the heap only, to keep the run"
                                        + " short"));
            case "targets":
                return List.of(
                        new Group(
                                "A",
                                "uniform-100k",
                                Mode.THROUGHPUT,
                                TARGETS,
                                Set.of(),
                                r3,
                                "the contenders of the throughput targets on both backends"));
            case "broadcast":
                // The broadcast join holds its build side on the heap whatever the backend: every
                // group runs on the heap only.
                return List.of(
                        new Group(
                                "F",
                                BroadcastTable.UNIFORM,
                                Mode.THROUGHPUT,
                                BROADCAST_UNIFORM,
                                Set.copyOf(BROADCAST_UNIFORM),
                                r3,
                                "the broadcast build side against P1, P4 and the hashed one"),
                        new Group(
                                "G",
                                BroadcastTable.ZIPF,
                                Mode.THROUGHPUT,
                                BROADCAST_SKEW,
                                Set.copyOf(BROADCAST_SKEW),
                                r3,
                                "skewed keys at parallelism 2: hashed against broadcast",
                                2),
                        new Group(
                                "H",
                                BroadcastTable.ZIPF,
                                Mode.THROUGHPUT,
                                BROADCAST_SKEW,
                                Set.copyOf(BROADCAST_SKEW),
                                r3,
                                "skewed keys at parallelism 4: hashed against broadcast",
                                4),
                        new Group(
                                "I",
                                BroadcastTable.BANDS,
                                Mode.THROUGHPUT,
                                BROADCAST_RANGE,
                                Set.copyOf(BROADCAST_RANGE),
                                r3,
                                "a range condition over 1,000 bands: hashed on one subtask against"
                                        + " broadcast at parallelism 2",
                                2));
            case "backlog-checkpoints":
                return List.of(
                        new Group(
                                "J",
                                BacklogCheckpointsTable.SCENARIO,
                                Mode.CAUGHT_UP,
                                List.of(Contender.P5U),
                                Set.of(),
                                r3,
                                "a load that the build source's backlog ends, with the probe rows"
                                        + " buffered meanwhile: a checkpoint every "
                                        + settings.checkpointIntervalSeconds
                                        + " s throughout, and the same with "
                                        + settings.intervalDuringBacklogSeconds
                                        + " s during the backlog",
                                0,
                                List.of(Backend.ROCKSDB),
                                List.of(0, settings.intervalDuringBacklogSeconds)));
            case "scale":
                List<Group> sizes = new ArrayList<>();
                for (int keys : settings.scaleKeys) {
                    sizes.add(
                            new Group(
                                    ScaleTable.GROUP,
                                    ScaleTable.scenario(keys),
                                    Mode.SCALE,
                                    List.of(Contender.P5U, Contender.P3, Contender.P1),
                                    Set.of(),
                                    // Two rounds where a round takes minutes, one where it takes
                                    // a quarter of an hour.
                                    settings.rounds > 0
                                            ? settings.rounds
                                            : keys <= 1_000_000 ? 2 : 1,
                                    "load-dominated: the build snapshot and a backlog of as many"
                                            + " probe rows arriving while it loads, to the last"
                                            + " joined row; P1 for the rate at which it takes in"
                                            + " the same build side",
                                    0,
                                    settings.scaleBackends,
                                    List.of(0)));
                }
                return sizes;
            case "upsert-source":
                return List.of(
                        new Group(
                                ScaleTable.GROUP,
                                ScaleTable.scenario(settings.scaleKeys.get(0)),
                                Mode.SCALE,
                                List.of(Contender.P5S, Contender.P5SN),
                                Set.of(),
                                settings.rounds > 0 ? settings.rounds : 2,
                                "load-dominated, over an upsert source: the join reading its"
                                        + " upserts against the same join behind Flink's"
                                        + " ChangelogNormalize"));
            case "quick":
                return List.of(
                        new Group(
                                "A",
                                "uniform-100k",
                                Mode.THROUGHPUT,
                                ALL,
                                Set.of(),
                                settings.rounds > 0 ? settings.rounds : 1,
                                "every contender on both backends, one round"));
            default:
                throw new IllegalArgumentException("Unknown plan " + settings.plan);
        }
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Settings.parse(args);
        Files.createDirectories(settings.workDir);
        Path csv = settings.workDir.resolve("results.csv");
        if (settings.plan.equals("datagen")) {
            DatagenRuns.run(settings);
            return;
        }
        if (settings.plan.equals("report")) {
            List<RunResult> results = ResultsCsv.read(csv);
            String scale = ScaleTable.of(results);
            if (!scale.isEmpty()) {
                // A scale run's tables go into the notes by hand, not into benchmarks.md; they can
                // be printed again from its results, also from those of a run stopped before its
                // end, which has written no meta.properties.
                System.out.print(scale);
                return;
            }
            Report.write(settings, RunMeta.read(settings.workDir), results);
            return;
        }
        List<Group> groups = plan(settings);
        Files.writeString(csv, RunResult.csvHeader() + "\n", StandardCharsets.UTF_8);
        RunMeta meta = new RunMeta();
        meta.start = LocalDateTime.now();
        meta.loadBefore = RunMeta.loadAverage();
        meta.groups = groups;
        long startNanos = System.nanoTime();
        List<RunResult> results = new ArrayList<>();
        int total = 0;
        for (Group group : groups) {
            for (int r = 1; r <= group.rounds; r++) {
                total += group.round(r, settings).size();
            }
        }
        int slots = settings.parallelism;
        for (Group group : groups) {
            slots = Math.max(slots, group.parallelism(settings));
        }
        System.out.printf(
                "Enrichment benchmark: %d runs in %d groups, parallelism %d, heap %s.%n",
                total,
                groups.size(),
                settings.parallelism,
                Format.bytes(Runtime.getRuntime().maxMemory()));
        try (JobRunner runner = new JobRunner(settings, slots)) {
            if (settings.warmUp) {
                warmUp(runner, settings);
            }
            int done = 0;
            for (Group group : groups) {
                ProbeKeys keys =
                        ProbeKeys.generate(group.scenario.distribution, group.scenario.buildKeys);
                System.out.printf(
                        "Group %s: %s, %s (hit rate %.3f, hottest key %.4f of rows): %s%n",
                        group.id,
                        keys,
                        group.mode.name().toLowerCase(),
                        keys.hitRate,
                        keys.hottestKeyShare(),
                        group.why);
                for (int r = 1; r <= group.rounds; r++) {
                    for (RunSpec spec : group.round(r, settings)) {
                        double load = RunMeta.loadAverage();
                        meta.loads.add(load);
                        RunResult result;
                        String skip =
                                ScaleTable.heapSkip(
                                        spec, results, Runtime.getRuntime().maxMemory());
                        if (skip != null) {
                            result = new RunResult(spec);
                            result.error = skip;
                        } else {
                            try {
                                result = runner.run(spec, keys);
                            } catch (RuntimeException | Error e) {
                                result = new RunResult(spec);
                                result.error = JobRunner.rootMessage(e);
                            }
                        }
                        results.add(result);
                        done++;
                        double elapsed = (System.nanoTime() - startNanos) / 1e9;
                        System.out.printf(
                                "[%3d/%d %5.1f min, load %.2f] %s%n",
                                done, total, elapsed / 60, load, result);
                        Files.writeString(
                                csv,
                                result.csv() + "\n",
                                StandardCharsets.UTF_8,
                                StandardOpenOption.APPEND);
                    }
                }
            }
        }
        meta.duration = Duration.ofNanos(System.nanoTime() - startNanos);
        meta.loadAfter = RunMeta.loadAverage();
        meta.write(settings.workDir, settings);
        boolean ownTable =
                settings.plan.equals("broadcast")
                        || settings.plan.equals("backlog-checkpoints")
                        || settings.plan.equals("scale")
                        || settings.plan.equals("upsert-source");
        if (settings.writeDocs && !ownTable) {
            Report.write(settings, RunMeta.read(settings.workDir), results);
        }
        if (settings.writeDocs && settings.plan.equals("scale")) {
            Path page = settings.docsDir.resolve("benchmarks.md");
            ScaleSection.write(page, settings, RunMeta.read(settings.workDir), results);
            System.out.println("Wrote the section 'Scale: load-dominated runs' of " + page);
        }
        String ratios = TargetsSection.ratios(results);
        if (!ratios.isEmpty()) {
            System.out.println();
            System.out.println("Target ratios (uniform keys, 100k build keys):");
            System.out.print(ratios);
        }
        // benchmarks.md is the report of a whole default run, rewritten from its results; the
        // tables of these plans compare settings, not the joins, and go by hand into the page
        // that explains the choice.
        printPlanTable(
                settings,
                "broadcast",
                String.format("Broadcast build side (heap; %s)", loads(meta)),
                BroadcastTable.of(results),
                "the section 'When to choose broadcast' of docs/operations.md");
        printPlanTable(
                settings,
                "backlog-checkpoints",
                String.format("Checkpoints during the load (%s)", loads(meta)),
                BacklogCheckpointsTable.of(results),
                "the section 'Checkpoints during the load' of docs/benchmarks-notes.md");
        // Both plans run the scale group's data: one table, titled by the plan that ran.
        boolean upsertSource = settings.plan.equals("upsert-source");
        printPlanTable(
                settings,
                upsertSource ? "upsert-source" : "scale",
                String.format(
                        upsertSource
                                ? "Scale: an upsert source with and without ChangelogNormalize"
                                        + " (%s)"
                                : "Scale: load-dominated runs (%s)",
                        loads(meta)),
                ScaleTable.of(results),
                upsertSource
                        ? "the section 'Scale: load-dominated runs' of docs/benchmarks-notes.md"
                        : null);
        System.out.printf("Done in %.1f min.%n", meta.duration.toSeconds() / 60.0);
        System.exit(0);
    }

    /**
     * Prints the table of a plan's runs, if the results have any, and says where it goes when the
     * plan was run to write the docs and does not write it itself (no destination).
     */
    private static void printPlanTable(
            Settings settings,
            String plan,
            String title,
            String table,
            @Nullable String destination) {
        if (table.isEmpty()) {
            return;
        }
        System.out.println();
        System.out.println(title + ":");
        System.out.print(table);
        if (settings.writeDocs && settings.plan.equals(plan) && destination != null) {
            System.out.println(
                    "--plan=" + plan + " writes no docs: its table goes into " + destination + ".");
        }
    }

    /** How loaded the machine was around the run, for the tables printed at its end. */
    private static String loads(RunMeta meta) {
        return String.format(
                "1-minute load average %.2f before, %.2f to %.2f during, %.2f after",
                meta.loadBefore,
                meta.loads.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN),
                meta.loads.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN),
                meta.loadAfter);
    }

    /** One unreported run each of P0 and P5 (heap) to warm the JVM's shared code paths. */
    private static void warmUp(JobRunner runner, Settings settings) throws IOException {
        int min = settings.minSeconds;
        int max = settings.maxSeconds;
        settings.minSeconds = 6;
        settings.maxSeconds = 8;
        ProbeKeys keys = ProbeKeys.generate(ProbeKeys.Distribution.UNIFORM, 100_000);
        for (Contender contender : List.of(Contender.P0, Contender.P5U)) {
            RunResult warm =
                    runner.run(
                            new RunSpec(
                                    Scenario.parse("uniform-100k"),
                                    Mode.THROUGHPUT,
                                    contender,
                                    Backend.HEAP,
                                    0,
                                    settings.parallelism),
                            keys);
            System.out.println("warm-up: " + warm);
        }
        settings.minSeconds = min;
        settings.maxSeconds = max;
    }
}
