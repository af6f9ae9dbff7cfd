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
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateNames;

import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.internal.InternalListState;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import org.junit.jupiter.api.TestTemplate;

import javax.annotation.Nullable;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pending build changes on their own, in the keyed state of a {@link KeyedStateHost}, on every
 * state backend. The join's use of them is in {@link LateralSnapshotJoinBuildSideTest}; here the
 * rows waiting on the heap are checked against the state a snapshot writes.
 */
class PendingBuildChangesTest extends BackendTestBase {

    @TestTemplate
    void takesTheRowsOfTheCurrentKeyAndTimeInArrivalOrder() throws Exception {
        try (Host host = host(PendingBuildChanges.MAX_HEAP_ROWS)) {
            host.add("A", 1, 10);
            host.add("B", 2, 10);
            host.add("A", 3, 10);
            host.add("A", 4, 11);

            assertThat(host.take("A", 10)).containsExactly("+I(A,1,10)", "+I(A,3,10)");
            assertThat(host.take("A", 10)).isEmpty();
            assertThat(host.take("B", 11)).isEmpty();
            assertThat(host.take("A", 11)).containsExactly("+I(A,4,11)");
            assertThat(host.take("B", 10)).containsExactly("+I(B,2,10)");
        }
    }

    @TestTemplate
    void changesBetweenSnapshotsTouchNoState() throws Exception {
        try (Host host = host(PendingBuildChanges.MAX_HEAP_ROWS)) {
            host.add("A", 1, 10);
            host.add("B", 2, 10);
            assertThat(host.take("A", 10)).containsExactly("+I(A,1,10)");
            assertThat(host.take("C", 10)).isEmpty();
            assertThat(host.take("B", 10)).containsExactly("+I(B,2,10)");
            host.writeToState();

            assertThat(host.stateCalls).hasValue(0);
        }
    }

    @TestTemplate
    void rowsOfAKeyAndTimeInTheStateComeBeforeThoseOnTheHeap() throws Exception {
        try (Host host = host(PendingBuildChanges.MAX_HEAP_ROWS)) {
            host.add("A", 1, 10);
            host.writeToState();
            host.add("A", 2, 10);

            assertThat(host.take("A", 10)).containsExactly("+I(A,1,10)", "+I(A,2,10)");
            assertThat(host.take("A", 10)).isEmpty();
        }
    }

    @TestTemplate
    void releasesTheRowsOnTheHeapTimeByTimeWithoutTimers() throws Exception {
        try (Host host = host(PendingBuildChanges.MAX_HEAP_ROWS)) {
            host.add("A", 1, 11);
            host.add("B", 2, 10);
            host.add("A", 3, 10);
            host.add("B", 4, 10);
            host.add("C", 5, 12);
            host.add("A", 6, 11);

            assertThat(host.pending.hasHeapRowsUpTo(9)).isFalse();
            assertThat(host.pending.hasHeapRowsUpTo(10)).isTrue();
            assertThat(host.pending.firstHeapTime()).isEqualTo(10);
            assertThat(host.releaseHeap(10))
                    .containsExactly("+I(B,2,10)", "+I(B,4,10)", "+I(A,3,10)");
            assertThat(host.pending.firstHeapTime()).isEqualTo(11);
            assertThat(host.releaseHeap(11)).containsExactly("+I(A,1,11)", "+I(A,6,11)");
            assertThat(host.releaseHeap(12)).containsExactly("+I(C,5,12)");
            assertThat(host.pending.hasHeapRowsUpTo(Long.MAX_VALUE)).isFalse();
            assertThat(host.timers).isEmpty();
            assertThat(host.stateCalls).hasValue(0);
        }
    }

    @TestTemplate
    void releasesTimesThatCameInAndOutOfOrderOnceEachInTimeOrder() throws Exception {
        try (Host host = host(PendingBuildChanges.MAX_HEAP_ROWS)) {
            host.add("A", 1, 10);
            host.add("B", 2, 12);
            host.add("C", 3, 11);
            host.add("D", 4, 12);
            host.add("A", 5, 10);
            // A time that came in order before, now out of order for another key.
            host.add("E", 6, 10);
            host.add("F", 7, 13);
            host.add("G", 8, 9);

            assertThat(host.pending.firstHeapTime()).isEqualTo(9);
            assertThat(host.releaseHeap(9)).containsExactly("+I(G,8,9)");
            assertThat(host.pending.firstHeapTime()).isEqualTo(10);
            assertThat(host.releaseHeap(10))
                    .containsExactlyInAnyOrder("+I(A,1,10)", "+I(A,5,10)", "+I(E,6,10)")
                    .containsSubsequence("+I(A,1,10)", "+I(A,5,10)");
            assertThat(host.pending.hasHeapRowsUpTo(10)).isFalse();
            assertThat(host.pending.firstHeapTime()).isEqualTo(11);
            assertThat(host.releaseHeap(11)).containsExactly("+I(C,3,11)");
            assertThat(host.releaseHeap(12)).containsExactly("+I(B,2,12)", "+I(D,4,12)");
            assertThat(host.pending.hasHeapRowsUpTo(12)).isFalse();
            assertThat(host.releaseHeap(13)).containsExactly("+I(F,7,13)");
            assertThat(host.pending.hasHeapRowsUpTo(Long.MAX_VALUE)).isFalse();
            assertThat(host.stateCalls).hasValue(0);
        }
    }

    @TestTemplate
    void rowsATimerTookAreNotReleasedAgain() throws Exception {
        try (Host host = host(PendingBuildChanges.MAX_HEAP_ROWS)) {
            host.add("A", 1, 10);
            host.add("B", 2, 10);
            assertThat(host.take("A", 10)).containsExactly("+I(A,1,10)");

            assertThat(host.releaseHeap(10)).containsExactly("+I(B,2,10)");
            assertThat(host.take("B", 10)).isEmpty();
        }
    }

    @TestTemplate
    void writingToStateRegistersATimerPerKeyAndTime() throws Exception {
        try (Host host = host(PendingBuildChanges.MAX_HEAP_ROWS)) {
            host.add("A", 1, 10);
            host.add("A", 2, 10);
            host.add("A", 3, 11);
            host.add("B", 4, 10);
            assertThat(host.pending.hasRowsInState()).isFalse();
            host.writeToState();

            assertThat(host.timers)
                    .containsExactlyInAnyOrder(
                            Tuple2.of(KeyedStateHost.keyOf("A"), 10L),
                            Tuple2.of(KeyedStateHost.keyOf("A"), 11L),
                            Tuple2.of(KeyedStateHost.keyOf("B"), 10L));
            assertThat(host.pending.hasRowsInState()).isTrue();
            assertThat(host.pending.hasHeapRowsUpTo(Long.MAX_VALUE)).isFalse();
            assertThat(host.releaseHeap(10)).isEmpty();
            assertThat(host.take("A", 10)).containsExactly("+I(A,1,10)", "+I(A,2,10)");
        }
    }

    @TestTemplate
    void rowsPastTheBoundWaitInTheStateInArrivalOrder() throws Exception {
        try (Host host = host(2)) {
            host.add("A", 1, 10);
            host.add("B", 2, 10);
            // The heap is full: A's row on the heap goes into the state, and this one behind it.
            host.add("A", 3, 10);
            host.add("C", 4, 10);
            host.add("D", 5, 10);
            assertThat(host.stateCalls.get()).isPositive();
            // Only the changes in the state need a timer.
            assertThat(host.added).containsExactly(false, false, true, false, true);
            assertThat(host.releaseHeap(10)).containsExactly("+I(B,2,10)", "+I(C,4,10)");

            assertThat(host.take("A", 10)).containsExactly("+I(A,1,10)", "+I(A,3,10)");
            assertThat(host.take("D", 10)).containsExactly("+I(D,5,10)");
            assertThat(host.take("C", 10)).isEmpty();
            assertThat(host.take("B", 10)).isEmpty();
            assertThat(host.take("A", 10)).isEmpty();
        }
    }

    @TestTemplate
    void takesTheRowsASnapshotWroteAfterARestore() throws Exception {
        OperatorSubtaskState snapshot;
        try (Host host = host(PendingBuildChanges.MAX_HEAP_ROWS)) {
            host.add("A", 1, 10);
            host.add("B", 2, 11);
            host.writeToState();
            host.add("A", 3, 10);
            host.writeToState();
            // Not written: the operator writes at every snapshot, this host's snapshot does not.
            host.add("C", 4, 12);
            snapshot = host.keyed.harness.snapshot(1L, 1L);
        }

        try (Host host = restoredHost(snapshot)) {
            host.pending.readRestored();
            assertThat(host.take("C", 12)).isEmpty();
            assertThat(host.take("A", 10)).containsExactly("+I(A,1,10)", "+I(A,3,10)");
            assertThat(host.take("B", 11)).containsExactly("+I(B,2,11)");
            // Every restored row is taken: taking reads no state any more.
            host.stateCalls.set(0);
            assertThat(host.take("B", 11)).isEmpty();
            assertThat(host.stateCalls).hasValue(0);
        }
    }

    private Host host(int maxHeapRows) throws Exception {
        return new Host(new KeyedStateHost(createStateBackend(), null), maxHeapRows);
    }

    private Host restoredHost(@Nullable OperatorSubtaskState snapshot) throws Exception {
        return new Host(
                new KeyedStateHost(createStateBackend(), snapshot),
                PendingBuildChanges.MAX_HEAP_ROWS);
    }

    /** The pending changes in the keyed state of a {@link KeyedStateHost}. */
    private static final class Host implements AutoCloseable {
        final KeyedStateHost keyed;
        final AtomicInteger stateCalls = new AtomicInteger();
        final PendingBuildChanges pending;
        final List<Boolean> added = new ArrayList<>();

        /** The event-time timers registered: key and time. */
        final List<Tuple2<Object, Long>> timers = new ArrayList<>();

        private final InternalTimerService<Long> timerService;

        @SuppressWarnings("unchecked")
        Host(KeyedStateHost keyed, int maxHeapRows) throws Exception {
            this.keyed = keyed;
            KeyedStateBackend<Object> backend = keyed.operator.getKeyedStateBackend();
            InternalListState<Object, Long, RowData> state =
                    (InternalListState<Object, Long, RowData>)
                            backend.getOrCreateKeyedState(
                                    LongSerializer.INSTANCE,
                                    new ListStateDescriptor<>(
                                            LateralSnapshotJoinStateNames.PENDING_BUILD_CHANGES,
                                            InternalTypeInfo.of(BUILD_TYPE)));
            this.pending =
                    new PendingBuildChanges(
                            backend,
                            KeyedStateHost.proxy(
                                    InternalListState.class,
                                    state,
                                    (method, result) -> {
                                        stateCalls.incrementAndGet();
                                        return result;
                                    }),
                            LateralSnapshotJoinStateNames.PENDING_BUILD_CHANGES,
                            maxHeapRows);
            this.timerService = recordingTimers(backend);
        }

        @SuppressWarnings("unchecked")
        private InternalTimerService<Long> recordingTimers(KeyedStateBackend<Object> backend) {
            return (InternalTimerService<Long>)
                    Proxy.newProxyInstance(
                            InternalTimerService.class.getClassLoader(),
                            new Class<?>[] {InternalTimerService.class},
                            (self, method, args) -> {
                                assertThat(method.getName()).isEqualTo("registerEventTimeTimer");
                                assertThat(args[1]).isEqualTo(args[0]);
                                timers.add(Tuple2.of(backend.getCurrentKey(), (Long) args[0]));
                                return null;
                            });
        }

        void writeToState() throws Exception {
            pending.writeToState(timerService);
        }

        /** The rows on the heap of the time, in the order they were given. */
        List<String> releaseHeap(long time) throws Exception {
            List<RowData> released = new ArrayList<>();
            pending.releaseHeap(time, (key, rows) -> released.addAll(rows));
            return KeyedStateHost.text(released);
        }

        /** Adds the insert of a build row of this currency and rate under the row's time. */
        void add(String currency, int rate, long time) throws Exception {
            keyed.setKey(currency);
            added.add(pending.add(time, insert(currency, rate, time).getValue()));
        }

        List<String> take(String currency, long time) throws Exception {
            keyed.setKey(currency);
            return KeyedStateHost.text(pending.take(time));
        }

        @Override
        public void close() throws Exception {
            keyed.close();
        }
    }
}
