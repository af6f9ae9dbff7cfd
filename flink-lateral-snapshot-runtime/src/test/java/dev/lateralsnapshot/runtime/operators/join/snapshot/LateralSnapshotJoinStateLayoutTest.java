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

import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinSpec.Distribution;
import dev.lateralsnapshot.runtime.operators.join.snapshot.keyed.MultisetRowsSerializer;

import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.EnumSerializer;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.MapSerializer;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.api.java.typeutils.runtime.TupleSerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot.BackendStateType;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot.CommonOptionsKeys;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot.CommonSerializerKeys;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.TimerSerializer;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.TestTemplate;

import java.io.IOException;
import java.io.Serializable;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Savepoints depend on the names, kinds and serializers of the operator's state. These tests read
 * them from the meta data of real snapshots of both distributions, so that renaming a state, a
 * timer service, or changing a serializer fails here before it breaks a user's restore; and they
 * check that a snapshot this version cannot read (another layout, the other distribution, a layout
 * that was never released) fails the restore with a message that says what it found.
 */
class LateralSnapshotJoinStateLayoutTest extends BackendTestBase {

    private static final TypeSerializer<?> KEY_SERIALIZER =
            new RowDataSerializer(RowType.of(STRING));
    private static final TypeSerializer<?> PROBE_ROW_SERIALIZER = new RowDataSerializer(PROBE_TYPE);
    private static final TypeSerializer<?> BUILD_ROW_SERIALIZER = new RowDataSerializer(BUILD_TYPE);

    private static JoinSpec hashJoin() {
        return join().distribution(Distribution.HASH);
    }

    private static JoinSpec broadcastJoin() {
        return join().distribution(Distribution.BROADCAST);
    }

    @TestTemplate
    void hashJoinKeepsStateNamesAndSerializersOfMultisetLayoutWithTtl() throws Exception {
        OperatorSubtaskState[] snapshots = snapshotsWithStateOfEveryKind(hashJoin().stateTtl(1000));

        Map<String, StateMetaInfoSnapshot> operatorState = StateMetaInfo.operatorState(snapshots);
        assertThat(operatorState)
                .containsOnlyKeys(
                        "phase",
                        "lateral-snapshot-phase",
                        "max-build-time",
                        "build-watermark",
                        "load-completed-reason",
                        "build-backlog",
                        "probe-buffer-sequence",
                        "state-ttl-clock");
        assertListState(operatorState.get("phase"), "UNION", IntSerializer.INSTANCE);
        // The phase once more, under the name Flink 2.4's join keeps its phase in.
        assertListState(
                operatorState.get("lateral-snapshot-phase"),
                "UNION",
                LateralSnapshotLibraryPhaseSerializer.INSTANCE);
        for (String union :
                new String[] {
                    "max-build-time",
                    "build-watermark",
                    "load-completed-reason",
                    "build-backlog",
                    "probe-buffer-sequence",
                    "state-ttl-clock"
                }) {
            assertListState(operatorState.get(union), "UNION", LongSerializer.INSTANCE);
        }

        Map<String, StateMetaInfoSnapshot> keyedState = StateMetaInfo.keyedState(snapshots);
        assertThat(keyedState)
                .containsOnlyKeys(
                        "probe-buffer",
                        "pending-build-changes",
                        "held-update-before",
                        "held-update-before-times",
                        "build-row-multiset",
                        "build-rows",
                        "last-probe-access",
                        "_timer_state/event_build-change-timers",
                        "_timer_state/processing_build-change-timers",
                        "_timer_state/event_state-ttl-timers",
                        "_timer_state/processing_state-ttl-timers");
        assertKeyedState(
                keyedState.get("probe-buffer"),
                "MAP",
                VoidNamespaceSerializer.INSTANCE,
                new MapSerializer<>(LongSerializer.INSTANCE, PROBE_ROW_SERIALIZER));
        // Namespaced by the change time: the timers carry it too.
        assertKeyedState(
                keyedState.get("pending-build-changes"),
                "LIST",
                LongSerializer.INSTANCE,
                new ListSerializer<>(BUILD_ROW_SERIALIZER));
        assertKeyedState(
                keyedState.get("held-update-before"),
                "LIST",
                LongSerializer.INSTANCE,
                new ListSerializer<>(BUILD_ROW_SERIALIZER));
        assertKeyedState(
                keyedState.get("held-update-before-times"),
                "MAP",
                VoidNamespaceSerializer.INSTANCE,
                new MapSerializer<>(LongSerializer.INSTANCE, LongSerializer.INSTANCE));
        // A key's rows inline, or the marker of a key spilled into the map below.
        assertKeyedState(
                keyedState.get("build-row-multiset"),
                "VALUE",
                VoidNamespaceSerializer.INSTANCE,
                new MultisetRowsSerializer(new RowDataSerializer(BUILD_TYPE)));
        assertKeyedState(
                keyedState.get("build-rows"),
                "MAP",
                VoidNamespaceSerializer.INSTANCE,
                new MapSerializer<>(BUILD_ROW_SERIALIZER, IntSerializer.INSTANCE));
        assertKeyedState(
                keyedState.get("last-probe-access"),
                "VALUE",
                VoidNamespaceSerializer.INSTANCE,
                LongSerializer.INSTANCE);
        for (String timers : new String[] {"event", "processing"}) {
            assertTimers(
                    keyedState.get("_timer_state/" + timers + "_build-change-timers"),
                    new TimerSerializer<>(KEY_SERIALIZER, LongSerializer.INSTANCE));
            assertTimers(
                    keyedState.get("_timer_state/" + timers + "_state-ttl-timers"),
                    new TimerSerializer<>(KEY_SERIALIZER, VoidNamespaceSerializer.INSTANCE));
        }
    }

    @TestTemplate
    void hashJoinKeepsStateNameAndSerializerOfOneRowPerKeyLayout() throws Exception {
        OperatorSubtaskState[] snapshots =
                snapshotsWithStateOfEveryKind(hashJoin().layout(BuildSideLayout.ONE_ROW_PER_KEY));

        Map<String, StateMetaInfoSnapshot> keyedState = StateMetaInfo.keyedState(snapshots);
        // Without a TTL there is neither its state nor its timers.
        assertThat(keyedState)
                .containsOnlyKeys(
                        "probe-buffer",
                        "pending-build-changes",
                        "held-update-before",
                        "held-update-before-times",
                        "build-row",
                        "_timer_state/event_build-change-timers",
                        "_timer_state/processing_build-change-timers");
        assertKeyedState(
                keyedState.get("build-row"),
                "VALUE",
                VoidNamespaceSerializer.INSTANCE,
                BUILD_ROW_SERIALIZER);
    }

    @TestTemplate
    @SuppressWarnings({"unchecked", "rawtypes"})
    void broadcastJoinKeepsStateNamesKindsAndSerializersOfMultisetLayoutWithTtl() throws Exception {
        OperatorSubtaskState[] snapshots =
                snapshotsWithStateOfEveryKind(broadcastJoin().stateTtl(1000));

        Map<String, StateMetaInfoSnapshot> state = StateMetaInfo.operatorState(snapshots);
        assertThat(state)
                .containsOnlyKeys(
                        "phase",
                        "lateral-snapshot-phase",
                        "max-build-time",
                        "build-watermark",
                        "load-completed-reason",
                        "build-backlog",
                        "broadcast-probe-buffer",
                        "broadcast-build-rows",
                        "broadcast-pending-build-changes",
                        "broadcast-held-update-before");
        assertListState(state.get("phase"), "UNION", IntSerializer.INSTANCE);
        assertListState(
                state.get("lateral-snapshot-phase"),
                "UNION",
                LateralSnapshotLibraryPhaseSerializer.INSTANCE);
        assertListState(state.get("max-build-time"), "UNION", LongSerializer.INSTANCE);
        assertListState(state.get("build-watermark"), "UNION", LongSerializer.INSTANCE);
        assertListState(state.get("load-completed-reason"), "UNION", LongSerializer.INSTANCE);
        assertListState(state.get("build-backlog"), "UNION", LongSerializer.INSTANCE);
        // Spread evenly over the subtasks of a restore.
        assertListState(
                state.get("broadcast-probe-buffer"), "SPLIT_DISTRIBUTE", PROBE_ROW_SERIALIZER);
        assertBroadcastState(
                state.get("broadcast-build-rows"),
                KEY_SERIALIZER,
                new MapSerializer<>(BUILD_ROW_SERIALIZER, IntSerializer.INSTANCE));
        assertBroadcastState(
                state.get("broadcast-pending-build-changes"),
                LongSerializer.INSTANCE,
                new ListSerializer<>(BUILD_ROW_SERIALIZER));
        assertBroadcastState(
                state.get("broadcast-held-update-before"),
                KEY_SERIALIZER,
                new ListSerializer<>(
                        new TupleSerializer<>(
                                (Class<Tuple3<Long, Long, ?>>) (Class) Tuple3.class,
                                new TypeSerializer[] {
                                    LongSerializer.INSTANCE,
                                    LongSerializer.INSTANCE,
                                    BUILD_ROW_SERIALIZER
                                })));
        assertThat(StateMetaInfo.keyedState(snapshots)).isEmpty();
    }

    @TestTemplate
    void broadcastJoinKeepsStateNameAndSerializerOfOneRowPerKeyLayout() throws Exception {
        OperatorSubtaskState[] snapshots =
                snapshotsWithStateOfEveryKind(
                        broadcastJoin().layout(BuildSideLayout.ONE_ROW_PER_KEY));

        Map<String, StateMetaInfoSnapshot> state = StateMetaInfo.operatorState(snapshots);
        assertThat(state)
                .containsKey("broadcast-build-row")
                .doesNotContainKey("broadcast-build-rows");
        assertBroadcastState(
                state.get("broadcast-build-row"), KEY_SERIALIZER, BUILD_ROW_SERIALIZER);
    }

    @TestTemplate
    void hashJoinRefusesToRestoreBuildSideKeptInOtherLayout() throws Exception {
        OperatorSubtaskState joining = snapshotsWithStateOfEveryKind(hashJoin())[1];

        try (JoinHarness harness = harness(hashJoin().layout(BuildSideLayout.ONE_ROW_PER_KEY))) {
            harness.initializeState(joining);
            assertThatThrownBy(harness::open)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(
                            "the savepoint keeps it in state 'build-row-multiset', but this job keeps it"
                                    + " as ONE_ROW_PER_KEY in state 'build-row'");
        }
    }

    @TestTemplate
    void broadcastJoinRefusesToRestoreBuildSideKeptInOtherLayout() throws Exception {
        OperatorSubtaskState joining = snapshotsWithStateOfEveryKind(broadcastJoin())[1];

        try (JoinHarness harness =
                harness(broadcastJoin().layout(BuildSideLayout.ONE_ROW_PER_KEY))) {
            assertThatThrownBy(() -> harness.initializeState(joining))
                    .hasStackTraceContaining(
                            "the savepoint keeps it in state 'broadcast-build-rows', but this job"
                                    + " keeps it as ONE_ROW_PER_KEY.");
        }
    }

    @TestTemplate
    void broadcastJoinRefusesToRestoreSnapshotOfTheHashJoin() throws Exception {
        OperatorSubtaskState hashSnapshot = snapshotsWithStateOfEveryKind(hashJoin())[1];
        try (JoinHarness harness = harness(broadcastJoin())) {
            assertThatThrownBy(() -> harness.initializeState(hashSnapshot))
                    .hasStackTraceContaining(
                            "The LATERAL SNAPSHOT join cannot restore its build side: the"
                                    + " savepoint was taken by a join that partitions both inputs"
                                    + " by the join keys"
                                    + " ('table.exec.lateral-snapshot.build-distribution' ="
                                    + " 'hash'), but this job broadcasts the build side.");
        }
    }

    @TestTemplate
    void hashJoinRefusesToRestoreSnapshotOfTheBroadcastJoin() throws Exception {
        OperatorSubtaskState broadcastSnapshot = snapshotsWithStateOfEveryKind(broadcastJoin())[1];
        try (JoinHarness harness = harness(hashJoin())) {
            assertThatThrownBy(() -> harness.initializeState(broadcastSnapshot))
                    .hasStackTraceContaining(
                            "The LATERAL SNAPSHOT join cannot restore its build side: the"
                                    + " savepoint was taken by a join that broadcasts the build"
                                    + " side ('table.exec.lateral-snapshot.build-distribution' ="
                                    + " 'broadcast'), but this job partitions both inputs by the"
                                    + " join keys.");
        }
    }

    /**
     * Builds before the spilled mark kept every key's rows in the spill map only; restored by this
     * version, their rows would be invisible, so the restore fails and says what it found.
     */
    @TestTemplate
    void hashJoinRefusesBuildRowsKeptInTheSpillMapWithoutTheMark() throws Exception {
        OperatorSubtaskState snapshot =
                snapshotOfKeyedState(
                        store ->
                                store.getMapState(
                                                new MapStateDescriptor<>(
                                                        "build-rows",
                                                        InternalTypeInfo.of(BUILD_TYPE),
                                                        Types.INT))
                                        .put(buildRow("A", 1), 1));
        try (JoinHarness harness = harness(hashJoin())) {
            harness.initializeState(snapshot);
            assertThatThrownBy(harness::open)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage(
                            "The LATERAL SNAPSHOT join cannot restore its build side: the"
                                    + " savepoint keeps build rows in state 'build-rows' for 1 key"
                                    + " without the mark of a spilled key in state"
                                    + " 'build-row-multiset'. This layout was never released;"
                                    + " restore from a savepoint taken by a released version of"
                                    + " this library, or start the job without one.");
        }
    }

    /**
     * Builds before the current layout kept a key's rows in a list state, which it does not read.
     */
    @TestTemplate
    void hashJoinRefusesBuildRowsKeptInAListLayout() throws Exception {
        OperatorSubtaskState snapshot =
                snapshotOfKeyedState(
                        store ->
                                store.getListState(
                                                new ListStateDescriptor<>(
                                                        "build-row-list",
                                                        InternalTypeInfo.of(BUILD_TYPE)))
                                        .add(buildRow("A", 1)));
        try (JoinHarness harness = harness(hashJoin())) {
            harness.initializeState(snapshot);
            assertThatThrownBy(harness::open)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage(
                            "The LATERAL SNAPSHOT join cannot restore its build side: the"
                                    + " savepoint keeps build rows in state 'build-row-list', a"
                                    + " layout that was never released and that this version does"
                                    + " not read. Restore from a savepoint taken by a released"
                                    + " version of this library, or start the job without one.");
        }
    }

    /**
     * A job without this library, a Flink 2.4 job whose operator ids match those of the savepoint
     * say, cannot read the operator state of the join: the class of a serializer it records is only
     * in this library.
     */
    @TestTemplate
    void savepointCannotBeRestoredWithoutThisLibrary() throws Exception {
        OperatorSubtaskState snapshot = snapshotsWithStateOfEveryKind(hashJoin())[1];
        ClassLoader withoutThisLibrary =
                new ClassLoader(LateralSnapshotJoinStateLayoutTest.class.getClassLoader()) {
                    @Override
                    protected Class<?> loadClass(String name, boolean resolve)
                            throws ClassNotFoundException {
                        if (name.startsWith("dev.lateralsnapshot.")) {
                            throw new ClassNotFoundException(name);
                        }
                        return super.loadClass(name, resolve);
                    }
                };

        assertThatThrownBy(() -> StateMetaInfo.operatorState(withoutThisLibrary, snapshot))
                .isInstanceOf(IOException.class)
                .hasStackTraceContaining(
                        LateralSnapshotLibraryPhaseSerializer.Snapshot.class.getName());
    }

    /**
     * A join that keeps its phase under the name Flink 2.4's join keeps it in, with Flink's enum
     * serializer as that join does, refuses the savepoint.
     */
    @TestTemplate
    void joinKeepingItsPhaseUnderFlink24sNameRefusesTheSavepoint() throws Exception {
        OperatorSubtaskState snapshot = snapshotsWithStateOfEveryKind(hashJoin())[1];
        JoinSpec spec = join();
        try (KeyedTwoInputStreamOperatorTestHarness<RowData, RowData, RowData, RowData> harness =
                new KeyedTwoInputStreamOperatorTestHarness<>(
                        new Flink24PhaseStandIn(),
                        spec.probeKeySelector(),
                        spec.buildKeySelector(),
                        spec.probeKeySelector().getProducedType(),
                        MAX_PARALLELISM,
                        1,
                        0)) {
            harness.setStateBackend(createStateBackend());
            harness.setup();
            assertThatThrownBy(() -> harness.initializeState(snapshot))
                    .hasStackTraceContaining(
                            "StateMigrationException: The new state typeSerializer for operator"
                                    + " state must not be incompatible.");
        }
    }

    /** Keeps its phase as Flink 2.4's join does, and nothing else. */
    private static final class Flink24PhaseStandIn extends AbstractStreamOperator<RowData>
            implements TwoInputStreamOperator<RowData, RowData, RowData> {
        private static final long serialVersionUID = 1L;

        private enum Phase {
            LOAD,
            JOIN
        }

        @Override
        public void initializeState(StateInitializationContext context) throws Exception {
            super.initializeState(context);
            context.getOperatorStateStore()
                    .getUnionListState(
                            new ListStateDescriptor<>(
                                    LateralSnapshotJoinStateNames.FLINK_2_4_PHASE,
                                    new EnumSerializer<>(Phase.class)));
        }

        @Override
        public void processElement1(StreamRecord<RowData> element) {}

        @Override
        public void processElement2(StreamRecord<RowData> element) {}
    }

    /**
     * Two snapshots that between them have a value in every state: one in the load phase with a
     * buffered probe row, one in the join phase with build rows, a pending change, a held -U and,
     * with a TTL, clocks.
     */
    private OperatorSubtaskState[] snapshotsWithStateOfEveryKind(JoinSpec spec) throws Exception {
        try (JoinHarness harness = harness(spec)) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 2, 10));
            harness.processWatermark2(watermark(50));
            harness.processElement1(probe("o1", "A"));
            OperatorSubtaskState loading = harness.snapshot(1L, 1L);
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement2(insert("C", 3, 150));
            harness.processElement2(updateBefore("B", 2, 10));
            return new OperatorSubtaskState[] {loading, harness.snapshot(2L, 2L)};
        }
    }

    /** A snapshot of the keyed state that an operator wrote for the key of build row A. */
    private OperatorSubtaskState snapshotOfKeyedState(KeyedStateWriter writer) throws Exception {
        JoinSpec spec = hashJoin();
        try (KeyedTwoInputStreamOperatorTestHarness<RowData, RowData, RowData, RowData> harness =
                new KeyedTwoInputStreamOperatorTestHarness<>(
                        new KeyedStateWritingOperator(writer),
                        spec.probeKeySelector(),
                        spec.buildKeySelector(),
                        spec.probeKeySelector().getProducedType(),
                        MAX_PARALLELISM,
                        1,
                        0)) {
            harness.setStateBackend(createStateBackend());
            harness.setup();
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            return harness.snapshot(1L, 1L);
        }
    }

    private static RowData buildRow(String currency, int rate) {
        return InternalTypeInfo.of(BUILD_TYPE)
                .toRowSerializer()
                .toBinaryRow(GenericRowData.of(StringData.fromString(currency), rate, at(10)))
                .copy();
    }

    /** Writes keyed state for the current key. */
    @FunctionalInterface
    private interface KeyedStateWriter extends Serializable {
        void write(KeyedStateStore store) throws Exception;
    }

    /** Writes keyed state for the key of every build row, and does nothing else. */
    private static final class KeyedStateWritingOperator extends AbstractStreamOperator<RowData>
            implements TwoInputStreamOperator<RowData, RowData, RowData> {
        private static final long serialVersionUID = 1L;

        private final KeyedStateWriter writer;

        KeyedStateWritingOperator(KeyedStateWriter writer) {
            this.writer = writer;
        }

        @Override
        public void processElement1(StreamRecord<RowData> element) {}

        @Override
        public void processElement2(StreamRecord<RowData> element) throws Exception {
            writer.write(getKeyedStateStore());
        }
    }

    private static void assertKeyedState(
            StateMetaInfoSnapshot state,
            String kind,
            TypeSerializer<?> namespaceSerializer,
            TypeSerializer<?> valueSerializer) {
        assertThat(state.getBackendStateType()).isEqualTo(BackendStateType.KEY_VALUE);
        assertThat(state.getOption(CommonOptionsKeys.KEYED_STATE_TYPE)).isEqualTo(kind);
        assertThat(StateMetaInfo.serializer(state, CommonSerializerKeys.NAMESPACE_SERIALIZER))
                .isEqualTo(namespaceSerializer);
        assertThat(StateMetaInfo.serializer(state, CommonSerializerKeys.VALUE_SERIALIZER))
                .isEqualTo(valueSerializer);
    }

    private static void assertTimers(StateMetaInfoSnapshot state, TimerSerializer<?, ?> timers) {
        assertThat(state.getBackendStateType()).isEqualTo(BackendStateType.PRIORITY_QUEUE);
        assertThat(StateMetaInfo.serializer(state, CommonSerializerKeys.VALUE_SERIALIZER))
                .isEqualTo(timers);
    }

    private static void assertListState(
            StateMetaInfoSnapshot state, String distribution, TypeSerializer<?> valueSerializer) {
        assertThat(state.getBackendStateType()).isEqualTo(BackendStateType.OPERATOR);
        assertThat(state.getOption(CommonOptionsKeys.OPERATOR_STATE_DISTRIBUTION_MODE))
                .isEqualTo(distribution);
        assertThat(StateMetaInfo.serializer(state, CommonSerializerKeys.VALUE_SERIALIZER))
                .isEqualTo(valueSerializer);
    }

    private static void assertBroadcastState(
            StateMetaInfoSnapshot state,
            TypeSerializer<?> keySerializer,
            TypeSerializer<?> valueSerializer) {
        assertThat(state.getBackendStateType()).isEqualTo(BackendStateType.BROADCAST);
        assertThat(state.getOption(CommonOptionsKeys.OPERATOR_STATE_DISTRIBUTION_MODE))
                .isEqualTo("BROADCAST");
        assertThat(StateMetaInfo.serializer(state, CommonSerializerKeys.KEY_SERIALIZER))
                .isEqualTo(keySerializer);
        assertThat(StateMetaInfo.serializer(state, CommonSerializerKeys.VALUE_SERIALIZER))
                .isEqualTo(valueSerializer);
    }
}
