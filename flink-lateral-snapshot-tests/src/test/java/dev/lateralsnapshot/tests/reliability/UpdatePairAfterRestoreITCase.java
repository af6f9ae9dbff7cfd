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
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static dev.lateralsnapshot.tests.reliability.ControlledJob.insert;
import static dev.lateralsnapshot.tests.reliability.ControlledJob.millis;
import static dev.lateralsnapshot.tests.reliability.ControlledJob.updateAfter;
import static dev.lateralsnapshot.tests.reliability.ControlledJob.updateBefore;
import static dev.lateralsnapshot.tests.reliability.SavepointPhase.day1;
import static dev.lateralsnapshot.tests.reliability.SavepointPhase.day2;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An update pair must stay atomic after a restore (docs/lateral-snapshot-join.md, "Build-side
 * changes"), also when the first build row the restored job reads is the -U of a pair, with the
 * reference's build watermark ({@code WATERMARK FOR update_time AS update_time}): the first fault
 * of docs/reliability.md, "Found and fixed".
 *
 * <p>A restored job starts with no build watermark, and Flink's SQL watermark assigner emits a
 * watermark as soon as a row moves it forward, right after that row: after the -U, whose time is
 * the old row's, and before its +U. The join then sees the build watermark pass the -U's time while
 * the +U has not come yet; a probe row joined in between must still see the old row.
 */
class UpdatePairAfterRestoreITCase extends MiniClusterTestBase {

    @ParameterizedTest
    @EnumSource(StateBackendKind.class)
    void probeRowBetweenTheMinusUAndItsPlusUSeesTheOldRow(StateBackendKind backend)
            throws Exception {
        String savepoint;
        try (ControlledJob job = start(backend, null)) {
            job.emitBuild(insert("A", 1.0, day1(10, 0)), insert("Z", 0.0, day2(0, 0)));
            job.job().awaitMetrics("every subtask flips", m -> m.allEqual(CURRENT_PHASE, 1));
            job.emitOrders(1, 3);
            assertThat(job.awaitOutput(3))
                    .containsExactlyInAnyOrder("+I[1, B, null]", "+I[2, C, null]", "+I[3, A, 1.0]");
            savepoint = job.stopWithSavepoint(directory.resolve("savepoint"));
        }

        try (ControlledJob job = start(backend, savepoint)) {
            // The -U of A, with the time of the row it retracts; the watermark follows at once.
            job.emitBuild(updateBefore("A", 1.0, day1(10, 0)));
            job.awaitBuildWatermark(millis(day1(10, 0)));
            job.emitOrders(4, 6);
            List<String> output = job.awaitOutput(3);
            assertThat(output)
                    .as("order 6 comes between the -U of A and its +U: it must see the old rate")
                    .containsExactlyInAnyOrder("+I[4, B, null]", "+I[5, C, null]", "+I[6, A, 1.0]");

            job.emitBuild(updateAfter("A", 1.5, day2(1, 0)));
            job.awaitBuildWatermark(millis(day2(1, 0)));
            job.emitOrders(7, 9);
            assertThat(job.awaitOutput(6).subList(3, 6))
                    .containsExactlyInAnyOrder("+I[7, B, null]", "+I[8, C, null]", "+I[9, A, 1.5]");
        }
    }

    private ControlledJob start(StateBackendKind backend, String savepoint) throws Exception {
        return SavepointJob.start(cluster(), backend, 2, savepoint, "update_time");
    }
}
