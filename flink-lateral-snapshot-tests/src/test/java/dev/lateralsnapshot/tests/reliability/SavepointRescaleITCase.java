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

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import javax.annotation.Nullable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;

import static dev.lateralsnapshot.tests.reliability.SavepointPhase.ORDERS_BEFORE_SAVEPOINT;

/**
 * Stop-with-savepoint and restore with another parallelism, 2 to 1 to 2, in both phases
 * (docs/reliability.md, "Changed parallelism"): the keyed state (build rows, pending changes,
 * buffered orders) is spread anew over the subtasks, and the phase, which every subtask keeps, must
 * survive the merge and the split. Each restore adds three orders, which the phase handles as it
 * must: the load phase buffers them, the join phase joins them at once. With a broadcast build side
 * (docs/operations.md, "Broadcast build side") every subtask restores one subtask's copy of the
 * build side and the buffered orders are spread anew.
 */
class SavepointRescaleITCase extends MiniClusterTestBase {

    static Stream<Arguments> phasesBackendsAndDistributions() {
        return Arrays.stream(SavepointPhase.values())
                .flatMap(
                        phase ->
                                Arrays.stream(StateBackendKind.values())
                                        .flatMap(
                                                backend ->
                                                        Stream.of("hash", "broadcast")
                                                                .map(
                                                                        distribution ->
                                                                                Arguments.of(
                                                                                        phase,
                                                                                        backend,
                                                                                        distribution))));
    }

    @ParameterizedTest(name = "{0} phase on {1}, {2} build side")
    @MethodSource("phasesBackendsAndDistributions")
    void restoresWithParallelismTwoThenOneThenTwo(
            SavepointPhase phase, StateBackendKind backend, String distribution) throws Exception {
        String savepoint;
        try (ControlledJob job = start(backend, 2, null, distribution)) {
            phase.fill(job);
            savepoint = job.stopWithSavepoint(savepoints("at-2"));
        }
        long lastOrder = ORDERS_BEFORE_SAVEPOINT;
        try (ControlledJob job = start(backend, 1, savepoint, distribution)) {
            phase.continueAfterRestore(job, lastOrder + 1, lastOrder + 3);
            lastOrder += 3;
            savepoint = job.stopWithSavepoint(savepoints("at-1"));
        }
        try (ControlledJob job = start(backend, 2, savepoint, distribution)) {
            phase.continueAfterRestore(job, lastOrder + 1, lastOrder + 3);
            lastOrder += 3;
            phase.finish(job, lastOrder);
        }
    }

    private ControlledJob start(
            StateBackendKind backend,
            int parallelism,
            @Nullable String savepoint,
            String distribution)
            throws Exception {
        return SavepointJob.start(
                cluster(),
                backend,
                parallelism,
                savepoint,
                SavepointJob.LAGGING_WATERMARK,
                distribution);
    }

    private Path savepoints(String name) throws Exception {
        return Files.createDirectories(directory.resolve(name));
    }
}
