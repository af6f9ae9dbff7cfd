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

package dev.lateralsnapshot.tests.reliability;

import dev.lateralsnapshot.config.LateralSnapshotOptions;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotBroadcastJoin;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoin;
import dev.lateralsnapshot.tests.runtime.MiniClusterTestBase;
import dev.lateralsnapshot.testutils.environments.StateBackendKind;

import org.apache.flink.table.api.CompiledPlan;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.util.FileUtils;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Restore tests of the join's exec nodes in the style of Flink's {@code RestoreTestBase}: for each
 * node (the hashed join and the join with a broadcast build side) and each phase of {@link
 * SavepointPhase}, a compiled plan of {@link SavepointJob} and a savepoint of the job run from it
 * are committed under {@code src/test/resources/restore-tests/<node type>/<case>/}, as {@code
 * plan/<case>.json} and {@code savepoint/}. Every build loads each plan into fresh tables, restores
 * it from its savepoint on the heap and on RocksDB, and checks what the restored job does. A change
 * to how a node is read from a plan, to the uids of its transformations, or to its state fails
 * here, as it would fail a user's {@code EXECUTE PLAN} with {@code execution.state-recovery.path}.
 *
 * <p>{@link #generateTestSetupFiles()} writes them anew, from the current build, for every node or
 * for the one whose type the property names; the README in that directory says when that is
 * legitimate:
 *
 * <pre>{@code
 * mvn -B -o verify -pl flink-lateral-snapshot-tests \
 *     -Dtest=CompiledPlanRestoreITCase#generateTestSetupFiles -Drestore-tests.generate=true
 * }</pre>
 */
class CompiledPlanRestoreITCase extends MiniClusterTestBase {

    static final String GENERATE_PROPERTY = "restore-tests.generate";

    /** The join's exec nodes, by the distribution of the build side that plans them. */
    enum Node {
        HASH(StreamExecLateralSnapshotJoin.TYPE, "hash"),
        BROADCAST(StreamExecLateralSnapshotBroadcastJoin.TYPE, "broadcast");

        /** The node's type in a plan, and the directory of its cases. */
        final String type;

        /** The value of the build distribution option that plans it. */
        final String distribution;

        Node(String type, String distribution) {
            this.type = type;
            this.distribution = distribution;
        }
    }

    /** Where the cases live in the sources; the generator writes there. */
    private static final Path SOURCE_DIRECTORY = Paths.get("src/test/resources/restore-tests");

    /** The savepoints are taken on RocksDB, as Flink's restore tests take theirs. */
    private static final StateBackendKind GENERATING_BACKEND = StateBackendKind.ROCKSDB;

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (Node node : Node.values()) {
            for (SavepointPhase phase : SavepointPhase.values()) {
                for (StateBackendKind backend : StateBackendKind.values()) {
                    cases.add(Arguments.of(node, phase, backend));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}, {1} phase on {2}")
    @MethodSource("cases")
    void restoresTheCommittedPlanFromItsSavepoint(
            Node node, SavepointPhase phase, StateBackendKind backend) throws Exception {
        String name = caseName(phase);
        Path savepoint = committed(node, name + "/savepoint");
        assertThat(savepoint.resolve("_metadata")).as("committed savepoint").isRegularFile();
        PlanReference plan = PlanReference.fromResource(planResource(node, name));

        try (ControlledJob job = SavepointJob.prepare(backend, 2, savepoint.toUri().toString())) {
            // The plan decides the distribution; the job's checks read it from the option.
            job.env().getConfig().set(LateralSnapshotOptions.BUILD_DISTRIBUTION, node.distribution);
            CompiledPlan loaded = SavepointJob.loadPlan(job, plan);
            assertThat(loaded.asJsonString()).as("the node of the plan").contains(node.type);
            job.submit(cluster(), loaded);
            phase.checkRestored(job);
        }
    }

    /**
     * The statement's plan compiled by the drop-in jar's planner, which fuses the Calc after the
     * join into the join when it runs a statement but not when it compiles one, is the committed
     * plan's: the same join node, of the same id, and a Calc of its own; it restores the committed
     * savepoint.
     */
    @ParameterizedTest(name = "{0} phase")
    @EnumSource(SavepointPhase.class)
    void theDropInPlannersPlanOfTheStatementRestoresTheCommittedSavepoint(SavepointPhase phase)
            throws Exception {
        String name = caseName(phase);
        Path savepoint = committed(Node.HASH, name + "/savepoint");
        String committedPlan = Files.readString(committed(Node.HASH, name + "/" + planPath(name)));

        try (ControlledJob job =
                SavepointJob.prepareDropIn(
                        StateBackendKind.HEAP, 2, savepoint.toUri().toString())) {
            // Numbered from 1, as the committed plans are.
            ExecNodeContext.resetIdCounter();
            CompiledPlan plan = SavepointJob.compilePlan(job);
            assertThat(plan.asJsonString()).doesNotContain("calc=[");
            assertThat(joinId(plan.asJsonString())).isEqualTo(joinId(committedPlan));
            job.submit(cluster(), plan);
            phase.checkRestored(job);
        }
    }

    /** The id of the join's node in a compiled plan. */
    private static String joinId(String plan) {
        Matcher id =
                Pattern.compile(
                                "\"id\" : (\\d+),\\s*\"type\" : \""
                                        + StreamExecLateralSnapshotJoin.TYPE
                                        + "\"")
                        .matcher(plan);
        assertThat(id.find()).as("the join's node in%n%s", plan).isTrue();
        return id.group(1);
    }

    /**
     * Compiles the plan of each case with the current build, runs it into the phase and stops it
     * with a savepoint, and puts both into the sources, replacing what was there: the cases of
     * every node when the property is {@code true}, of one node when it names the node's type.
     */
    @Test
    @EnabledIfSystemProperty(named = GENERATE_PROPERTY, matches = ".+")
    void generateTestSetupFiles() throws Exception {
        assumeThat(Files.isDirectory(SOURCE_DIRECTORY))
                .as("run from the module directory, where " + SOURCE_DIRECTORY + " is")
                .isTrue();
        String selected = System.getProperty(GENERATE_PROPERTY);
        for (Node node : Node.values()) {
            if (!selected.equals("true") && !selected.equals(node.type)) {
                continue;
            }
            for (SavepointPhase phase : SavepointPhase.values()) {
                generate(node, phase);
            }
        }
    }

    private void generate(Node node, SavepointPhase phase) throws Exception {
        String name = caseName(phase);
        Path target = SOURCE_DIRECTORY.resolve(node.type).resolve(name);
        if (Files.exists(target)) {
            FileUtils.deleteDirectory(target.toFile());
        }
        Path planFile = target.resolve(planPath(name));
        Files.createDirectories(planFile.getParent());
        String savepoint;
        try (ControlledJob job = SavepointJob.prepare(GENERATING_BACKEND, 2, null)) {
            job.env().getConfig().set(LateralSnapshotOptions.BUILD_DISTRIBUTION, node.distribution);
            // Nodes numbered from 1 in every case: a regenerated plan differs only where the
            // build changed.
            ExecNodeContext.resetIdCounter();
            CompiledPlan plan = SavepointJob.compilePlan(job);
            plan.writeToFile(planFile);
            job.submit(cluster(), plan);
            phase.fill(job);
            savepoint = job.stopWithSavepoint(directory.resolve(node.type + "-" + name));
        }
        CommittedSavepointsITCase.copy(
                Paths.get(URI.create(savepoint)), target.resolve("savepoint"));
    }

    /** The directory of a phase's case, as Flink names its restore tests' cases. */
    private static String caseName(SavepointPhase phase) {
        return "lateral-snapshot-join-" + phase.name().toLowerCase(Locale.ROOT) + "-phase";
    }

    private static String planPath(String caseName) {
        return "plan/" + caseName + ".json";
    }

    private static String planResource(Node node, String caseName) {
        return "restore-tests/" + node.type + "/" + caseName + "/" + planPath(caseName);
    }

    private static Path committed(Node node, String path) throws URISyntaxException {
        String resource = "/restore-tests/" + node.type + "/" + path;
        URL url =
                Objects.requireNonNull(
                        CompiledPlanRestoreITCase.class.getResource(resource), resource);
        return Paths.get(url.toURI());
    }
}
