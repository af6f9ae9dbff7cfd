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

package dev.lateralsnapshot.runtime.operators.join.snapshot.keyed;

import dev.lateralsnapshot.runtime.operators.join.snapshot.BackendTestBase;

import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import org.junit.jupiter.api.TestTemplate;

import javax.annotation.Nullable;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The held -U rows on their own, in the keyed state of a {@link KeyedStateHost}, on every state
 * backend. The join's use of them is in {@link LateralSnapshotJoinBuildSideTest}; here the rows
 * held on the heap are checked against the state a snapshot writes.
 */
class HeldUpdateBeforesTest extends BackendTestBase {

    @TestTemplate
    void takesRowsOfTheSoleKeyAndTimeInArrivalOrder() throws Exception {
        try (Host host = host()) {
            host.hold("A", 1, 10, 20);
            host.hold("A", 2, 10, 20);

            assertThat(host.takeAll("B")).isEmpty();
            assertThat(host.takeAll("A")).containsExactly("-U(A,1,10)", "-U(A,2,10)");
            assertThat(host.takeAll("A")).isEmpty();
        }
    }

    @TestTemplate
    void takesRowsOfEveryTimeOfTheCurrentKeyOnly() throws Exception {
        try (Host host = host()) {
            host.hold("A", 1, 10, 20);
            host.hold("B", 1, 11, 20);
            host.hold("A", 2, 12, 20);

            assertThat(host.takeAll("A")).containsExactly("-U(A,1,10)", "-U(A,2,12)");
            assertThat(host.takeAll("A")).isEmpty();
            assertThat(host.takeAll("B")).containsExactly("-U(B,1,11)");
        }
    }

    @TestTemplate
    void releasesRowsOfATimeOnceTheWatermarkReachesItsLatestReleaseTime() throws Exception {
        try (Host host = host()) {
            host.hold("A", 1, 10, 30);
            host.hold("A", 2, 10, 20);
            host.hold("A", 3, 12, 20);

            assertThat(host.takeReleased("A", 10, 29)).isEmpty();
            assertThat(host.takeReleased("A", 10, 30)).containsExactly("-U(A,1,10)", "-U(A,2,10)");
            assertThat(host.takeReleased("A", 10, 30)).isEmpty();
            assertThat(host.takeAll("A")).containsExactly("-U(A,3,12)");
        }
    }

    @TestTemplate
    void keyOfAnotherClassIsAnotherKeyOnEveryBackend() throws Exception {
        try (Host host = host()) {
            host.hold("A", 1, 10, 20);

            // The same fields as a generic row: the heap backend's keys compare with equals, and
            // so do the held keys on every backend. The key selector's keys are all binary rows.
            assertThat(host.takeAll(GenericRowData.of(StringData.fromString("A")))).isEmpty();
            assertThat(host.takeAll("A")).containsExactly("-U(A,1,10)");
        }
    }

    @TestTemplate
    void holdsRowsTakenBetweenSnapshotsWithoutTouchingTheState() throws Exception {
        try (Host host = host()) {
            // A -U whose +U comes after the changes of other keys, as when a network buffer of
            // another channel comes between them.
            host.hold("A", 1, 10, 20);
            host.hold("B", 1, 11, 20);
            assertThat(host.takeAll("B")).containsExactly("-U(B,1,11)");
            host.hold("C", 1, 12, 20);
            host.hold("C", 2, 13, 20);
            assertThat(host.takeAll("C")).containsExactly("-U(C,1,12)", "-U(C,2,13)");
            assertThat(host.takeReleased("D", 10, 20)).isEmpty();
            assertThat(host.takeAll("A")).containsExactly("-U(A,1,10)");
            host.held.writeToState();

            assertThat(host.mapStateCalls).hasValue(0);
        }
    }

    @TestTemplate
    void keepsTheStateInStepWithTheRowsTakenAndHeldSinceASnapshot() throws Exception {
        OperatorSubtaskState snapshot;
        try (Host host = host()) {
            host.hold("A", 1, 10, 20);
            host.hold("B", 1, 11, 20);
            host.held.writeToState();
            // After the write: one key's rows taken, a row more held under a written time, and a
            // row under a new time, which only the next write would put into the state (the
            // operator writes at every snapshot; this host's snapshot does not).
            assertThat(host.takeAll("A")).containsExactly("-U(A,1,10)");
            host.hold("B", 2, 11, 30);
            host.hold("C", 1, 12, 20);
            snapshot = host.keyed.harness.snapshot(1L, 1L);
        }

        try (Host host = restoredHost(snapshot)) {
            host.held.readRestored();
            assertThat(host.takeAll("A")).isEmpty();
            assertThat(host.takeAll("C")).isEmpty();
            assertThat(host.takeReleased("B", 11, 29)).isEmpty();
            assertThat(host.takeReleased("B", 11, 30)).containsExactly("-U(B,1,11)", "-U(B,2,11)");
        }
    }

    @TestTemplate
    void takesRowsRestoredFromASnapshot() throws Exception {
        OperatorSubtaskState snapshot;
        try (Host host = host()) {
            host.hold("A", 1, 10, 20);
            host.hold("B", 1, 11, 20);
            host.held.writeToState();
            snapshot = host.keyed.harness.snapshot(1L, 1L);
        }

        try (Host host = restoredHost(snapshot)) {
            host.held.readRestored();
            assertThat(host.takeReleased("A", 10, 20)).containsExactly("-U(A,1,10)");
            assertThat(host.takeAll("B")).containsExactly("-U(B,1,11)");
        }
    }

    private Host host() throws Exception {
        return restoredHost(null);
    }

    /** A host on the test's state backend, restored from the snapshot when given. */
    private Host restoredHost(@Nullable OperatorSubtaskState snapshot) throws Exception {
        return new Host(new KeyedStateHost(createStateBackend(), snapshot));
    }

    /** The store, whose map states count the calls made on them. */
    private static KeyedStateStore countingMapStateCalls(
            KeyedStateStore store, AtomicInteger calls) {
        return KeyedStateHost.proxy(
                KeyedStateStore.class,
                store,
                (method, result) ->
                        method.getName().equals("getMapState")
                                ? KeyedStateHost.proxy(
                                        MapState.class,
                                        result,
                                        (mapMethod, mapResult) -> {
                                            calls.incrementAndGet();
                                            return mapResult;
                                        })
                                : result);
    }

    /** The held rows in the keyed state of a {@link KeyedStateHost}. */
    private static final class Host implements AutoCloseable {
        final KeyedStateHost keyed;
        final AtomicInteger mapStateCalls = new AtomicInteger();
        final HeldUpdateBefores held;

        Host(KeyedStateHost keyed) throws Exception {
            this.keyed = keyed;
            this.held =
                    new HeldUpdateBefores(
                            keyed.operator.getKeyedStateBackend(),
                            countingMapStateCalls(
                                    keyed.operator.getKeyedStateStore(), mapStateCalls),
                            InternalTypeInfo.of(BUILD_TYPE));
        }

        /** Holds the -U of a build row of this currency and rate under the row's time. */
        void hold(String currency, int rate, long time, long releaseAt) throws Exception {
            keyed.setKey(currency);
            held.hold(time, releaseAt, updateBefore(currency, rate, time).getValue());
        }

        List<String> takeAll(String currency) throws Exception {
            return takeAll(KeyedStateHost.keyOf(currency));
        }

        List<String> takeAll(RowData key) throws Exception {
            keyed.operator.setCurrentKey(key);
            return KeyedStateHost.text(held.takeAll());
        }

        List<String> takeReleased(String currency, long time, long watermark) throws Exception {
            keyed.setKey(currency);
            return KeyedStateHost.text(held.takeReleased(time, watermark));
        }

        @Override
        public void close() throws Exception {
            keyed.close();
        }
    }
}
