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

import dev.lateralsnapshot.tests.runtime.MiniClusterTestBase;
import dev.lateralsnapshot.testutils.environments.StateBackendKind;

import org.apache.flink.util.FileUtils;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * State compatibility (docs/reliability.md, "Committed savepoints"): restores every savepoint
 * committed under {@code src/test/resources/reliability/savepoints/<version>/}, taken with {@link
 * SavepointJob} in each phase on each state backend, and checks that the restored job behaves as
 * the phase demands (see {@link SavepointPhase}). A change to the operator's state (names,
 * serializers, layout) or to the shape of the job graph the planner builds fails here, as it would
 * fail a user's restore.
 *
 * <p>{@link #generateSavepoints()} takes the savepoints of the version named by the system property
 * {@value #GENERATE_PROPERTY}; the README in the savepoint directory says when that is legitimate:
 *
 * <pre>{@code
 * mvn -B -o verify -pl flink-lateral-snapshot-tests \
 *     -Dtest=CommittedSavepointsITCase#generateSavepoints \
 *     -Dreliability.generate-savepoints=0.1.0-SNAPSHOT
 * }</pre>
 */
class CommittedSavepointsITCase extends MiniClusterTestBase {

    static final String GENERATE_PROPERTY = "reliability.generate-savepoints";

    /** Where the savepoints live in the sources; the generator writes there. */
    private static final Path SOURCE_DIRECTORY =
            Paths.get("src/test/resources/reliability/savepoints");

    private static final String RESOURCE = "/reliability/savepoints";

    static Stream<Arguments> committedSavepoints() throws IOException, URISyntaxException {
        Path root =
                Paths.get(
                        Objects.requireNonNull(
                                        CommittedSavepointsITCase.class.getResource(RESOURCE))
                                .toURI());
        List<Arguments> savepoints = new ArrayList<>();
        try (Stream<Path> versions = Files.list(root)) {
            for (Path version :
                    (Iterable<Path>) versions.filter(Files::isDirectory).sorted()::iterator) {
                for (StateBackendKind backend : StateBackendKind.values()) {
                    for (SavepointPhase phase : SavepointPhase.values()) {
                        Path savepoint = version.resolve(phase.savepointName(backendName(backend)));
                        // A version must have all of them: a missing one would pass unnoticed.
                        assertThat(savepoint.resolve("_metadata"))
                                .as("committed savepoint")
                                .isRegularFile();
                        savepoints.add(
                                Arguments.of(
                                        version.getFileName().toString(),
                                        backend,
                                        phase,
                                        savepoint));
                    }
                }
            }
        }
        assertThat(savepoints).as("committed savepoints under " + root).isNotEmpty();
        return savepoints.stream();
    }

    @ParameterizedTest(name = "{0}: {2} phase on {1}")
    @MethodSource("committedSavepoints")
    void restoresTheCommittedSavepoint(
            String version, StateBackendKind backend, SavepointPhase phase, Path savepoint)
            throws Exception {
        try (ControlledJob job =
                SavepointJob.start(cluster(), backend, 2, savepoint.toUri().toString())) {
            phase.checkRestored(job);
        }
    }

    /**
     * The same statement planned by the drop-in jar's planner, which fuses the Calc after the join
     * into the join, restores the savepoints taken of it without fusion: the job graph gives the
     * join the same operator id, and the Calc that is gone had no state.
     */
    @ParameterizedTest(name = "{0}: {2} phase on {1}, fused")
    @MethodSource("committedSavepoints")
    void theFusedJobRestoresTheCommittedSavepoint(
            String version, StateBackendKind backend, SavepointPhase phase, Path savepoint)
            throws Exception {
        try (ControlledJob job =
                SavepointJob.prepareDropIn(backend, 2, savepoint.toUri().toString())) {
            assertThat(job.env().explainSql(SavepointJob.QUERY))
                    .contains("calc=[select=[order_id, currency, rate]]");
            job.submit(cluster(), SavepointJob.QUERY);
            phase.checkRestored(job);
        }
    }

    /**
     * Takes the savepoints of a version with the current build and puts them into the sources,
     * replacing those of that version. Refuses a released version (one without {@code -SNAPSHOT}):
     * its savepoints are what users hold, and the current build must restore them as they are.
     */
    @Test
    @EnabledIfSystemProperty(named = GENERATE_PROPERTY, matches = ".+")
    void generateSavepoints() throws Exception {
        String version = System.getProperty(GENERATE_PROPERTY);
        Path target = SOURCE_DIRECTORY.resolve(version);
        assumeThat(Files.isDirectory(SOURCE_DIRECTORY))
                .as("run from the module directory, where " + SOURCE_DIRECTORY + " is")
                .isTrue();
        if (!version.endsWith("-SNAPSHOT") && Files.exists(target)) {
            throw new IllegalStateException(
                    "The savepoints of the released version "
                            + version
                            + " are never regenerated: a build that cannot restore them breaks"
                            + " its users' jobs. Fix the build instead.");
        }
        for (StateBackendKind backend : StateBackendKind.values()) {
            for (SavepointPhase phase : SavepointPhase.values()) {
                String savepoint;
                try (ControlledJob job = SavepointJob.start(cluster(), backend, 2, null)) {
                    phase.fill(job);
                    savepoint =
                            job.stopWithSavepoint(
                                    directory.resolve(phase.savepointName(backendName(backend))));
                }
                copy(
                        Paths.get(java.net.URI.create(savepoint)),
                        target.resolve(phase.savepointName(backendName(backend))));
            }
        }
    }

    private static String backendName(StateBackendKind backend) {
        return backend.name().toLowerCase();
    }

    /**
     * Replaces a directory by a copy of a savepoint's directory (its metadata and state files),
     * without the path of the directory the savepoint was taken in.
     */
    static void copy(Path savepoint, Path target) throws IOException {
        if (Files.exists(target)) {
            FileUtils.deleteDirectory(target.toFile());
        }
        Files.createDirectories(target);
        try (Stream<Path> files = Files.list(savepoint)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path copy = target.resolve(file.getFileName());
                Files.copy(file, copy);
                if (file.getFileName().toString().equals("_metadata")) {
                    withoutTakenInDirectory(copy, savepoint);
                }
            }
        }
    }

    /**
     * The metadata names the state it holds inline by the path it would have had as a file. Those
     * names are never read back, and a restore finds state files relative to the metadata; they
     * carry the path of the test's temporary directory, which is blanked with a string of the same
     * length, so that the serialized strings keep their lengths.
     */
    private static void withoutTakenInDirectory(Path metadata, Path savepoint) throws IOException {
        byte[] bytes = Files.readAllBytes(metadata);
        String temporaryDirectory = savepoint.toAbsolutePath().getParent().getParent().toString();
        byte[] path = temporaryDirectory.getBytes(StandardCharsets.UTF_8);
        byte[] blank = ("/" + "x".repeat(path.length - 1)).getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i + path.length <= bytes.length; i++) {
            if (Arrays.equals(bytes, i, i + path.length, path, 0, path.length)) {
                System.arraycopy(blank, 0, bytes, i, blank.length);
            }
        }
        Files.write(metadata, bytes);
    }
}
