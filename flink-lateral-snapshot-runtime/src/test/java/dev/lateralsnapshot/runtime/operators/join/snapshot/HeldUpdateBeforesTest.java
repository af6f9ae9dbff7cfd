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

import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import org.junit.jupiter.api.TestTemplate;

import javax.annotation.Nullable;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The held -U rows on their own, in the keyed state of an operator that does nothing else, on every
 * state backend. The join's use of them is in {@link LateralSnapshotJoinBuildSideTest}; here the
 * rows held on the heap are checked against the state a snapshot writes.
 */
class HeldUpdateBeforesTest extends LateralSnapshotJoinTestBase {

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
            snapshot = host.harness.snapshot(1L, 1L);
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
            snapshot = host.harness.snapshot(1L, 1L);
        }

        try (Host host = restoredHost(snapshot)) {
            host.held.readRestored();
            assertThat(host.takeReleased("A", 10, 20)).containsExactly("-U(A,1,10)");
            assertThat(host.takeAll("B")).containsExactly("-U(B,1,11)");
        }
    }

    private Host host() throws Exception {
        return open(new Host(), null);
    }

    private Host restoredHost(OperatorSubtaskState snapshot) throws Exception {
        return open(new Host(), snapshot);
    }

    /** Opens the host on the test's state backend, restored from the snapshot when given. */
    private Host open(Host host, @Nullable OperatorSubtaskState snapshot) throws Exception {
        host.harness.setStateBackend(createStateBackend());
        if (snapshot != null) {
            host.harness.initializeState(snapshot);
        }
        host.harness.open();
        host.held =
                new HeldUpdateBefores(
                        host.operator.getKeyedStateBackend(),
                        countingMapStateCalls(
                                host.operator.getKeyedStateStore(), host.mapStateCalls),
                        InternalTypeInfo.of(BUILD_TYPE));
        return host;
    }

    /** The store, whose map states count the calls made on them. */
    private static KeyedStateStore countingMapStateCalls(
            KeyedStateStore store, AtomicInteger calls) {
        return proxy(
                KeyedStateStore.class,
                store,
                (method, result) ->
                        method.getName().equals("getMapState")
                                ? proxy(
                                        MapState.class,
                                        result,
                                        (mapMethod, mapResult) -> {
                                            calls.incrementAndGet();
                                            return mapResult;
                                        })
                                : result);
    }

    /** A proxy of {@code target} that hands every call's result to {@code after}. */
    private static <T> T proxy(
            Class<T> type, Object target, BiFunction<Method, Object, Object> after) {
        return type.cast(
                Proxy.newProxyInstance(
                        type.getClassLoader(),
                        new Class<?>[] {type},
                        (self, method, args) -> {
                            try {
                                return after.apply(method, method.invoke(target, args));
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        }));
    }

    /**
     * The held rows in the keyed state of an operator, keyed like the standard join's build side.
     * Rows taken are returned as text, as the harness tests print them.
     */
    private static final class Host implements AutoCloseable {
        private static final RowDataKeySelector KEYS = join().buildKeySelector();

        final NoOpOperator operator = new NoOpOperator();
        final KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> harness;
        final AtomicInteger mapStateCalls = new AtomicInteger();
        HeldUpdateBefores held;

        Host() throws Exception {
            harness =
                    new KeyedOneInputStreamOperatorTestHarness<>(
                            operator, KEYS, KEYS.getProducedType());
        }

        /** Holds the -U of a build row of this currency and rate under the row's time. */
        void hold(String currency, int rate, long time, long releaseAt) throws Exception {
            operator.setCurrentKey(keyOf(currency));
            held.hold(time, releaseAt, updateBefore(currency, rate, time).getValue());
        }

        List<String> takeAll(String currency) throws Exception {
            return takeAll(keyOf(currency));
        }

        List<String> takeAll(RowData key) throws Exception {
            operator.setCurrentKey(key);
            return text(held.takeAll());
        }

        List<String> takeReleased(String currency, long time, long watermark) throws Exception {
            operator.setCurrentKey(keyOf(currency));
            return text(held.takeReleased(time, watermark));
        }

        /** The key of the build rows of this currency, as the join's key selector makes it. */
        private static RowData keyOf(String currency) throws Exception {
            return KEYS.getKey(insert(currency, 0, 0).getValue());
        }

        private static List<String> text(List<RowData> rows) {
            return rows.stream()
                    .map(row -> formatRow(row, BUILD_TYPE))
                    .collect(Collectors.toList());
        }

        @Override
        public void close() throws Exception {
            harness.close();
        }
    }

    private static final class NoOpOperator extends AbstractStreamOperator<RowData>
            implements OneInputStreamOperator<RowData, RowData> {
        private static final long serialVersionUID = 1L;

        @Override
        public void processElement(StreamRecord<RowData> element) {}
    }
}
