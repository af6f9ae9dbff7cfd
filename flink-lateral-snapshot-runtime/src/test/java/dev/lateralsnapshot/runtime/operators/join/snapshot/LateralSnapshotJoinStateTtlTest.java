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

/**
 * State TTL: in the join phase, a build key that neither a probe row nor a build change accessed
 * for the TTL loses all its rows. Clocks start at the flip for keys loaded before it and at the
 * first insert for later keys. An access is kept as its time plus a tenth of the TTL, written only
 * once the kept time has passed. How the clocks survive a restore differs between the distributions
 * ({@link BuildSideDistributionTest}).
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
}
