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

import org.junit.jupiter.api.TestTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** A calc fused into the broadcast join, as {@link LateralSnapshotJoinFusedCalcTest}. */
class BroadcastLateralSnapshotJoinFusedCalcTest extends BroadcastLateralSnapshotJoinTestBase {

    @TestTemplate
    void everyJoinedAndPaddedRowGoesThroughTheCalc() throws Exception {
        TenfoldRateCalc calc = new TenfoldRateCalc();
        try (BroadcastJoinHarness harness =
                broadcastHarness(
                        join().leftOuterJoin().fusedCalc(TenfoldRateCalc.OUTPUT_TYPE, calc))) {
            harness.open();
            assertThat(calc.opened).isTrue();
            assertThat(calc.openedWithContext).isTrue();

            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 2, 10));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "B"));
            harness.processElement1(probe("o3", "C"));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.fireDueTimers();
            assertThat(harness.takeOutput()).containsExactlyInAnyOrder("+I(o2,20)", "+I(o3,null)");

            harness.processElement1(probe("o4", "B"));
            harness.processElement1(probe("o5", "A"));
            harness.processElement1(probe("o6", "C"));
            assertThat(harness.takeOutput()).containsExactly("+I(o4,20)", "+I(o6,null)");

            assertThat(harness.counter("numUnmatchedProbeRecords")).isEqualTo(2L);
            assertThat(harness.gauge("maxJoinFanOut")).isEqualTo(1L);
            assertThat(harness.gauge("avgJoinFanOut")).isEqualTo(1.0);
        }
        assertThat(calc.closed).isTrue();
    }
}
