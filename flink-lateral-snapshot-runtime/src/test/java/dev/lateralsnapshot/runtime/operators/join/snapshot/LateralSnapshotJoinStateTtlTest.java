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

import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;

import org.junit.jupiter.api.TestTemplate;

import javax.annotation.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * State TTL: in the join phase, a build key that neither a probe row nor a build change accessed
 * for the TTL loses all its rows. Clocks start at the flip for keys loaded before it and at the
 * first insert for later keys. An access is kept as its time plus a tenth of the TTL, written only
 * once the kept time has passed.
 */
class LateralSnapshotJoinStateTtlTest extends LateralSnapshotJoinTestBase {

    private static final long TTL = 1000L;

    @TestTemplate
    void evictsBuildKeysNoProbeRowAccessedForTtl() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin().stateTtl(TTL))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 2, 10));
            harness.processElement2(insert("Z", 0, 10));
            harness.setProcessingTime(500);
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));

            harness.setProcessingTime(1000);
            harness.processElement1(probe("o1", "A"));

            harness.setProcessingTime(1499);
            assertThat(harness.counter("numStateTtlEvictions")).isZero();

            // B and Z were last touched by the flip at 500, A by a probe row at 1000.
            harness.setProcessingTime(1500);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(2L);
            harness.processElement1(probe("o2", "A"));
            harness.processElement1(probe("o3", "B"));

            assertThat(harness.takeOutput())
                    .containsExactly(
                            joined("o1", "A", 1, 10), joined("o2", "A", 1, 10), padded("o3", "B"));
        }
    }

    @TestTemplate
    void timeTheJobIsStoppedDoesNotCountTowardsTtl() throws Exception {
        OperatorSubtaskState snapshot;
        try (JoinHarness harness = harness(join().leftOuterJoin().stateTtl(TTL))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("Z", 0, 10));
            harness.setProcessingTime(500);
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.setProcessingTime(1000);
            harness.processElement1(probe("o1", "A"));
            harness.setProcessingTime(1200);
            snapshot = harness.snapshot(1L, 1200L);
        }

        // Restored 100 s later. Z has 300 ms of its TTL left, A 800 ms: nothing may expire at
        // the restore, although the timers of the first run are long overdue.
        try (JoinHarness harness = harness(join().leftOuterJoin().stateTtl(TTL))) {
            harness.setProcessingTime(100_000);
            harness.initializeState(snapshot);
            harness.open();
            harness.setProcessingTime(100_001);
            harness.processElement1(probe("o2", "A"));
            assertThat(harness.counter("numStateTtlEvictions")).isZero();

            harness.setProcessingTime(100_299);
            assertThat(harness.counter("numStateTtlEvictions")).isZero();
            harness.setProcessingTime(100_300);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);

            // o2 touched A at TTL time 1201, kept as 1301: it lives until 2301, that is 101_100
            // here.
            harness.setProcessingTime(101_099);
            harness.processElement1(probe("o3", "A"));
            harness.processElement1(probe("o4", "Z"));
            assertThat(harness.takeOutput())
                    .containsExactly(
                            joined("o2", "A", 1, 10), joined("o3", "A", 1, 10), padded("o4", "Z"));
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);
        }
    }

    @TestTemplate
    void probeAccessKeepsBuildKeyAlive() throws Exception {
        try (JoinHarness harness = harness(join().stateTtl(TTL))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));

            for (long now = 600; now <= 6000; now += 600) {
                harness.setProcessingTime(now);
                harness.processElement1(probe("o" + now, "A"));
            }
            assertThat(harness.takeOutput()).hasSize(10);
            assertThat(harness.counter("numStateTtlEvictions")).isZero();

            // The last probe row at 6000 is kept as 6100.
            harness.setProcessingTime(7099);
            assertThat(harness.counter("numStateTtlEvictions")).isZero();
            harness.setProcessingTime(7100);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);
        }
    }

    @TestTemplate
    void doesNotEvictInLoadPhaseAndStartsClockAtFlip() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin().stateTtl(TTL))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(50));

            harness.setProcessingTime(10_000);
            assertThat(harness.counter("numStateTtlEvictions")).isZero();

            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.setProcessingTime(10_999);
            assertThat(harness.counter("numStateTtlEvictions")).isZero();
            harness.setProcessingTime(11_000);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);

            harness.processElement1(probe("o1", "A"));
            assertThat(harness.takeOutput()).containsExactly(padded("o1", "A"));
        }
    }

    @TestTemplate
    void startsClockOfKeyCreatedInJoinPhaseAtFirstInsert() throws Exception {
        try (JoinHarness harness = harness(join().stateTtl(TTL))) {
            harness.open();
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));

            harness.setProcessingTime(5000);
            harness.processElement2(insert("C", 3, 150));
            harness.processWatermark2(watermark(150));

            harness.setProcessingTime(5999);
            assertThat(harness.counter("numStateTtlEvictions")).isZero();
            harness.setProcessingTime(6000);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);

            // Inserted again after its eviction, the key gets a new clock; the probe row at 6000
            // is kept as the end of its window, 6100.
            harness.processElement2(insert("C", 5, 170));
            harness.processWatermark2(watermark(170));
            harness.processElement1(probe("o1", "C"));
            harness.setProcessingTime(7099);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);
            harness.setProcessingTime(7100);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(2L);
            assertThat(harness.takeOutput()).containsExactly(joined("o1", "C", 5, 170));
        }
    }

    @TestTemplate
    void buildChangesKeepBuildKeyAlive() throws Exception {
        try (JoinHarness harness = harness(join().stateTtl(TTL))) {
            harness.open();
            harness.processElement2(insert("A", 1, LOAD_COMPLETED_TIME));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));

            // A is updated every 600 ms and never probed.
            for (int i = 1; i <= 10; i++) {
                harness.setProcessingTime(600L * i);
                harness.processElement2(updateBefore("A", i, LOAD_COMPLETED_TIME + i - 1));
                harness.processElement2(updateAfter("A", i + 1, LOAD_COMPLETED_TIME + i));
                harness.processWatermark2(watermark(LOAD_COMPLETED_TIME + i));
            }
            assertThat(harness.counter("numStateTtlEvictions")).isZero();
            // Each -U found its row: no update was lost to an eviction.
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
            harness.processElement1(probe("o1", "A"));
            assertThat(harness.takeOutput())
                    .containsExactly(joined("o1", "A", 11, LOAD_COMPLETED_TIME + 10));

            // The probe row at 6000 is the key's last access, kept as 6100.
            harness.setProcessingTime(7099);
            assertThat(harness.counter("numStateTtlEvictions")).isZero();
            harness.setProcessingTime(7100);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);
        }
    }

    @TestTemplate
    void buildChangeToEvictedKeyStartsNoClockBeforeItIsApplied() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin().stateTtl(TTL))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.setProcessingTime(TTL);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);

            // A retraction of the evicted row keeps nothing alive; the insert after it starts the
            // key's clock when it is applied.
            harness.setProcessingTime(1500);
            harness.processElement2(delete("A", 1, 10));
            assertThat(keptAccess(harness, "A")).isNull();
            harness.processElement2(insert("A", 2, 150));
            harness.setProcessingTime(1800);
            harness.processWatermark2(watermark(150));
            assertThat(keptAccess(harness, "A")).isEqualTo(1800L);

            harness.setProcessingTime(2799);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);
            harness.setProcessingTime(2800);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(2L);
        }
    }

    @TestTemplate
    void writesAccessesOfKeyAtMostOncePerTenthOfTtl() throws Exception {
        try (JoinHarness harness = harness(join().stateTtl(TTL))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            assertThat(keptAccess(harness, "A")).isZero();

            // Windows of a tenth of the TTL: the first access of a window writes the window's
            // end; the other accesses of the window are not written at all.
            long window = TTL / 10;
            for (long now = 10; now <= 2 * window + 10; now += 10) {
                harness.setProcessingTime(now);
                harness.processElement1(probe("o" + now, "A"));
                assertThat(keptAccess(harness, "A")).isEqualTo((now / window + 1) * window);
            }
            // A build change refreshes the key as a probe row does.
            harness.setProcessingTime(3 * window);
            harness.processElement2(insert("A", 2, 200));
            assertThat(keptAccess(harness, "A")).isEqualTo(4 * window);
            harness.setProcessingTime(3 * window + 10);
            harness.processElement2(insert("A", 3, 200));
            assertThat(keptAccess(harness, "A")).isEqualTo(4 * window);
            assertThat(harness.takeOutput()).hasSize(21);
        }
    }

    @TestTemplate
    void neverEvictsBeforeTtlHasPassedSinceLastAccess() throws Exception {
        try (JoinHarness harness = harness(join().stateTtl(TTL))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.setProcessingTime(10);
            harness.processElement1(probe("o1", "A"));
            // Not written, but covered by the end of the window kept at 10.
            harness.setProcessingTime(99);
            harness.processElement1(probe("o2", "A"));

            harness.setProcessingTime(99 + TTL - 1);
            assertThat(harness.counter("numStateTtlEvictions")).isZero();
            harness.setProcessingTime(100 + TTL);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);
        }
    }

    @TestTemplate
    void evictsWholeBuildSideAtOnceWithoutEquiKeys() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin().noEquiKeys().stateTtl(TTL))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 2, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));

            harness.setProcessingTime(TTL);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);
            harness.processElement1(probe("o1", "A"));
            assertThat(harness.takeOutput()).containsExactly(padded("o1", "A"));
        }
    }

    /** The time the TTL clock keeps for the last access of a build key, read from the state. */
    @Nullable
    private static Long keptAccess(JoinHarness harness, String currency) throws Exception {
        AbstractStreamOperator<?> operator = (AbstractStreamOperator<?>) harness.getOperator();
        operator.setCurrentKey(join().probeKeySelector().getKey(probe("", currency).getValue()));
        return operator.getKeyedStateBackend()
                .getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ValueStateDescriptor<>(
                                StateTtlClock.LAST_PROBE_ACCESS_STATE, Types.LONG))
                .value();
    }
}
