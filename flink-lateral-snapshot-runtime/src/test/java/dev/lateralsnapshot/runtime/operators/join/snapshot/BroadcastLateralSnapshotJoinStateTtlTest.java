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

package dev.lateralsnapshot.runtime.operators.join.snapshot;

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;

import org.junit.jupiter.api.TestTemplate;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The state TTL of the broadcast join is kept per subtask: the probe rows that reach a subtask keep
 * keys alive in that subtask's copy of the build side only, and a restore starts every clock anew.
 */
class BroadcastLateralSnapshotJoinStateTtlTest extends BroadcastLateralSnapshotJoinTestBase {

    private static final long TTL = 1000;

    @TestTemplate
    void evictsPerSubtaskByThatSubtasksProbeAccess() throws Exception {
        JoinSpec spec = join().leftOuterJoin().stateTtl(TTL);
        List<BroadcastJoinHarness> subtasks = restoreSubtasks(spec, 2);
        for (BroadcastJoinHarness subtask : subtasks) {
            subtask.processElement2(insert("A", 1, 10));
            subtask.processElement2(insert("B", 2, 10));
            subtask.processWatermark2(watermark(LOAD_COMPLETED_TIME));
        }
        BroadcastJoinHarness probed = subtasks.get(0);
        BroadcastJoinHarness idle = subtasks.get(1);
        probed.setProcessingTime(500);
        probed.processElement1(probe("o1", "A"));
        probed.setProcessingTime(950);
        probed.processElement1(probe("o2", "A"));

        for (BroadcastJoinHarness subtask : subtasks) {
            subtask.setProcessingTime(TTL);
            subtask.processElement1(probe("p1", "A"));
            subtask.processElement1(probe("p2", "B"));
        }
        assertThat(probed.takeOutput())
                .containsExactly(
                        joined("o1", "A", 1, 10),
                        joined("o2", "A", 1, 10),
                        joined("p1", "A", 1, 10),
                        padded("p2", "B"));
        assertThat(probed.counter("numStateTtlEvictions")).isEqualTo(1L);
        // A key evicted here is still there on the other subtask.
        assertThat(idle.takeOutput()).containsExactly(padded("p1", "A"), padded("p2", "B"));
        assertThat(idle.counter("numStateTtlEvictions")).isEqualTo(2L);
        for (BroadcastJoinHarness subtask : subtasks) {
            subtask.close();
        }
    }

    @TestTemplate
    void doesNotEvictInLoadPhaseAndBuildChangesKeepKeysAlive() throws Exception {
        try (BroadcastJoinHarness harness =
                broadcastHarness(join().leftOuterJoin().stateTtl(TTL))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 2, 10));
            harness.processWatermark2(watermark(50));
            harness.setProcessingTime(5 * TTL);
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            assertThat(harness.counter("numStateTtlEvictions")).isZero();

            // A change of A's, and a key created in the join phase, whose clock starts with it.
            harness.setProcessingTime(5 * TTL + 500);
            harness.processElement2(insert("A", 3, 150));
            harness.processElement2(insert("C", 4, 150));
            harness.processWatermark2(watermark(150));
            harness.setProcessingTime(6 * TTL);
            for (String key : new String[] {"A", "B", "C"}) {
                harness.processElement1(probe("o-" + key, key));
            }
            assertThat(harness.takeOutput())
                    .containsExactlyInAnyOrder(
                            joined("o-A", "A", 1, 10),
                            joined("o-A", "A", 3, 150),
                            padded("o-B", "B"),
                            joined("o-C", "C", 4, 150));
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);
        }
    }

    @TestTemplate
    void evictsWholeBuildSideAtOnceWithoutEquiKeys() throws Exception {
        try (BroadcastJoinHarness harness =
                broadcastHarness(join().leftOuterJoin().noEquiKeys().stateTtl(TTL))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 2, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.setProcessingTime(TTL - 1);
            harness.processElement1(probe("o1", "A"));
            assertThat(harness.takeOutput())
                    .containsExactlyInAnyOrder("+I(o1,A,A,1,10)", "+I(o1,A,B,2,10)");

            harness.setProcessingTime(3 * TTL);
            harness.processElement1(probe("o2", "A"));
            assertThat(harness.takeOutput()).containsExactly(padded("o2", "A"));
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);
        }
    }

    @TestTemplate
    void restoreStartsEveryClockAnew() throws Exception {
        JoinSpec spec = join().leftOuterJoin().stateTtl(TTL);
        OperatorSubtaskState snapshot;
        try (BroadcastJoinHarness harness = broadcastHarness(spec)) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.setProcessingTime(TTL - 1);
            snapshot = harness.snapshot(1L, 1L);
        }

        try (BroadcastJoinHarness harness = broadcastHarness(spec)) {
            // Restored long after the key was last accessed.
            harness.setProcessingTime(10 * TTL);
            harness.initializeState(snapshot);
            harness.open();
            harness.setProcessingTime(11 * TTL - 1);
            harness.processElement1(probe("o1", "A"));
            assertThat(harness.takeOutput()).containsExactly(joined("o1", "A", 1, 10));
            assertThat(harness.counter("numStateTtlEvictions")).isZero();

            harness.setProcessingTime(13 * TTL);
            harness.processElement1(probe("o2", "A"));
            assertThat(harness.takeOutput()).containsExactly(padded("o2", "A"));
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);
        }
    }
}
