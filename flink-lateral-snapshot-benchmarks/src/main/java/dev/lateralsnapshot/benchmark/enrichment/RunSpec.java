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

/** One job to run: a contender on a backend, over a data scenario, in a mode. */
final class RunSpec {

    enum Backend {
        HEAP("heap", "hashmap"),
        ROCKSDB("RocksDB", "rocksdb"),
        /** Flink 2.3's disaggregated backend, here with its files on the local file system. */
        FORST("ForSt", "forst");

        /** The backends of every group but the scale group, which runs ForSt too. */
        static final List<Backend> HEAP_AND_ROCKSDB = List.of(HEAP, ROCKSDB);

        /** Whether the backend keeps its state in files, whose size on disk a run measures. */
        boolean onDisk() {
            return this != HEAP;
        }

        final String label;
        final String configValue;

        Backend(String label, String configValue) {
            this.label = label;
            this.configValue = configValue;
        }
    }

    enum Mode {
        /** As fast as the job takes the rows; steady-state throughput and latency under load. */
        THROUGHPUT,
        /** A fixed probe rate below every contender's saturation; latency. */
        LATENCY,
        /** LATERAL SNAPSHOT only: a held load phase with buffered probe rows, then the flip. */
        LOAD,
        /**
         * LATERAL SNAPSHOT only, with {@code
         * table.exec.lateral-snapshot.load-completed-on-caught-up}: the probe rows are buffered
         * while the build snapshot loads, and the load phase ends when the build source's backlog
         * does, once every reader has emitted its snapshot.
         */
        CAUGHT_UP,
        /**
         * A load-dominated run: the build side is a snapshot of one row per key and nothing after
         * it, and a bounded backlog of probe rows, one per build key, arrives while it loads; the
         * run ends with the last joined row. LATERAL SNAPSHOT's load phase ends as in {@link
         * #CAUGHT_UP}.
         */
        SCALE;

        /** Whether the run has a load phase with buffered probe rows, and measures its flip. */
        boolean holdsLoadPhase() {
            return this == LOAD || this == CAUGHT_UP;
        }

        /**
         * Whether the load phase ends with the build source's backlog, not when the driver lets it.
         */
        boolean loadEndsWithBacklog() {
            return this == CAUGHT_UP || this == SCALE;
        }
    }

    /** A data scenario: the probe key distribution and the number of build keys. */
    static final class Scenario {
        final String name;
        final ProbeKeys.Distribution distribution;
        final int buildKeys;

        Scenario(String name, ProbeKeys.Distribution distribution, int buildKeys) {
            this.name = name;
            this.distribution = distribution;
            this.buildKeys = buildKeys;
        }

        static Scenario parse(String name) {
            String[] parts = name.split("-");
            ProbeKeys.Distribution distribution =
                    ProbeKeys.Distribution.valueOf(parts[0].toUpperCase());
            String size = parts[1].toLowerCase();
            int keys =
                    size.endsWith("m")
                            ? Integer.parseInt(size.substring(0, size.length() - 1)) * 1_000_000
                            : size.endsWith("k")
                                    ? Integer.parseInt(size.substring(0, size.length() - 1)) * 1000
                                    : Integer.parseInt(size);
            return new Scenario(name, distribution, keys);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    final Scenario scenario;
    final Mode mode;
    final Contender contender;
    final Backend backend;
    final int round;

    /** The job's default parallelism: of the sources, and of the join unless it runs on one. */
    final int parallelism;

    /**
     * Flink's {@code execution.checkpointing.interval-during-backlog} in seconds, the checkpoint
     * interval while a source reports a backlog; 0 to leave it unset, so that the job checkpoints
     * at its one interval throughout.
     */
    final int intervalDuringBacklogSeconds;

    RunSpec(
            Scenario scenario,
            Mode mode,
            Contender contender,
            Backend backend,
            int round,
            int parallelism) {
        this(scenario, mode, contender, backend, round, parallelism, 0);
    }

    RunSpec(
            Scenario scenario,
            Mode mode,
            Contender contender,
            Backend backend,
            int round,
            int parallelism,
            int intervalDuringBacklogSeconds) {
        this.scenario = scenario;
        this.mode = mode;
        this.contender = contender;
        this.backend = backend;
        this.round = round;
        this.parallelism = parallelism;
        this.intervalDuringBacklogSeconds = intervalDuringBacklogSeconds;
    }

    /**
     * Whether the run has a join that flips from its load phase with buffered probe rows: the load
     * modes, and LATERAL SNAPSHOT in a scale run (its peers have no load phase).
     */
    boolean flips() {
        return mode.holdsLoadPhase() || (mode == Mode.SCALE && contender.isSnapshot());
    }

    String label() {
        return scenario
                + "/"
                + mode.name().toLowerCase()
                + "/"
                + contender
                + "/"
                + backend.label
                + "/p"
                + parallelism
                + (intervalDuringBacklogSeconds > 0
                        ? "/backlog-checkpoints-" + intervalDuringBacklogSeconds + "s"
                        : "")
                + "/r"
                + round;
    }
}
