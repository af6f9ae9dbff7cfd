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

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.EnumSerializer;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.MapSerializer;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.OperatorBackendSerializationProxy;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
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
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.TestTemplate;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Savepoints depend on the names and serializers of the operator's state. These tests read them
 * from the meta data of real snapshots, so that renaming a state, a timer service, or changing a
 * serializer fails here before it breaks a user's restore.
 */
class LateralSnapshotJoinStateLayoutTest extends LateralSnapshotJoinTestBase {

    private static final TypeSerializer<?> KEY_SERIALIZER =
            new RowDataSerializer(RowType.of(STRING));
    private static final TypeSerializer<?> PROBE_ROW_SERIALIZER = new RowDataSerializer(PROBE_TYPE);
    private static final TypeSerializer<?> BUILD_ROW_SERIALIZER = new RowDataSerializer(BUILD_TYPE);

    @TestTemplate
    void keepsStateNamesAndSerializersOfMultisetLayoutWithTtl() throws Exception {
        OperatorSubtaskState[] snapshots = snapshotsWithStateOfEveryKind(join().stateTtl(1000));

        Map<String, StateMetaInfoSnapshot> operatorState = operatorStateMetaInfo(snapshots);
        assertThat(operatorState)
                .containsOnlyKeys(
                        "phase",
                        "lateral-snapshot-phase",
                        "max-build-time",
                        "build-watermark",
                        "probe-buffer-sequence",
                        "state-ttl-clock");
        StateMetaInfoSnapshot phase = operatorState.get("phase");
        assertThat(phase.getOption(CommonOptionsKeys.OPERATOR_STATE_DISTRIBUTION_MODE))
                .isEqualTo("UNION");
        assertThat(serializer(phase, CommonSerializerKeys.VALUE_SERIALIZER))
                .isEqualTo(IntSerializer.INSTANCE);
        // The phase once more, under the name Flink 2.4's join keeps its phase in.
        StateMetaInfoSnapshot flink24Phase = operatorState.get("lateral-snapshot-phase");
        assertThat(flink24Phase.getOption(CommonOptionsKeys.OPERATOR_STATE_DISTRIBUTION_MODE))
                .isEqualTo("UNION");
        assertThat(serializer(flink24Phase, CommonSerializerKeys.VALUE_SERIALIZER))
                .isEqualTo(LateralSnapshotLibraryPhaseSerializer.INSTANCE);
        StateMetaInfoSnapshot maxBuildTime = operatorState.get("max-build-time");
        assertThat(maxBuildTime.getOption(CommonOptionsKeys.OPERATOR_STATE_DISTRIBUTION_MODE))
                .isEqualTo("UNION");
        assertThat(serializer(maxBuildTime, CommonSerializerKeys.VALUE_SERIALIZER))
                .isEqualTo(LongSerializer.INSTANCE);
        StateMetaInfoSnapshot buildWatermark = operatorState.get("build-watermark");
        assertThat(buildWatermark.getOption(CommonOptionsKeys.OPERATOR_STATE_DISTRIBUTION_MODE))
                .isEqualTo("UNION");
        assertThat(serializer(buildWatermark, CommonSerializerKeys.VALUE_SERIALIZER))
                .isEqualTo(LongSerializer.INSTANCE);
        StateMetaInfoSnapshot probeBufferSequence = operatorState.get("probe-buffer-sequence");
        assertThat(
                        probeBufferSequence.getOption(
                                CommonOptionsKeys.OPERATOR_STATE_DISTRIBUTION_MODE))
                .isEqualTo("UNION");
        assertThat(serializer(probeBufferSequence, CommonSerializerKeys.VALUE_SERIALIZER))
                .isEqualTo(LongSerializer.INSTANCE);
        StateMetaInfoSnapshot ttlClock = operatorState.get("state-ttl-clock");
        assertThat(ttlClock.getOption(CommonOptionsKeys.OPERATOR_STATE_DISTRIBUTION_MODE))
                .isEqualTo("UNION");
        assertThat(serializer(ttlClock, CommonSerializerKeys.VALUE_SERIALIZER))
                .isEqualTo(LongSerializer.INSTANCE);

        Map<String, StateMetaInfoSnapshot> keyedState = keyedStateMetaInfo(snapshots);
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
    void keepsStateNameAndSerializerOfOneRowPerKeyLayout() throws Exception {
        OperatorSubtaskState[] snapshots =
                snapshotsWithStateOfEveryKind(join().layout(BuildSideLayout.ONE_ROW_PER_KEY));

        Map<String, StateMetaInfoSnapshot> keyedState = keyedStateMetaInfo(snapshots);
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
    void refusesToRestoreBuildSideKeptInOtherLayout() throws Exception {
        OperatorSubtaskState joining = snapshotsWithStateOfEveryKind(join())[1];

        try (JoinHarness harness = harness(join().layout(BuildSideLayout.ONE_ROW_PER_KEY))) {
            harness.initializeState(joining);
            assertThatThrownBy(harness::open)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(
                            "the savepoint keeps it in state 'build-row-multiset', but this job keeps it"
                                    + " as ONE_ROW_PER_KEY in state 'build-row'");
        }
    }

    /**
     * Savepoints of the earliest multiset layout kept every key's rows in the map only: a restore
     * moves them into the current layout, inline or, past the bound, spilled.
     */
    @TestTemplate
    void restoresBuildRowsKeptInTheMapOnly() throws Exception {
        restoresIntoTheCurrentLayout(snapshotOfStandIn(new MapLayoutStandIn(), buildRows()));
    }

    /**
     * Savepoints of the layout before the current one kept a key's inline rows in a list state, and
     * in that list the marker of a key spilled into the map: a restore moves them into the current
     * layout and leaves the list empty, so that the next restore finds the current layout.
     */
    @TestTemplate
    void restoresBuildRowsKeptInTheListLayout() throws Exception {
        restoresIntoTheCurrentLayout(snapshotOfStandIn(new ListLayoutStandIn(), buildRows()));
    }

    /** Two equal rows of A, one of B, three of D, and rows of C past the inline bound. */
    private static List<StreamRecord<RowData>> buildRows() {
        List<StreamRecord<RowData>> rows = new ArrayList<>();
        rows.add(insert("A", 1, 10));
        rows.add(insert("A", 1, 10));
        rows.add(insert("B", 2, 10));
        rows.add(insert("D", 4, 10));
        rows.add(insert("D", 5, 10));
        rows.add(insert("D", 6, 10));
        for (int rate = 0; rate <= MultisetBuildSideState.MAX_INLINE_ROWS; rate++) {
            rows.add(insert("C", rate, 10));
        }
        return rows;
    }

    /** Restores a snapshot of {@link #buildRows}, deletes a row of B, C and D, and probes. */
    private void restoresIntoTheCurrentLayout(OperatorSubtaskState snapshot) throws Exception {
        int manyRows = MultisetBuildSideState.MAX_INLINE_ROWS + 1;
        try (JoinHarness harness = harness(join())) {
            harness.initializeState(snapshot);
            harness.open();

            assertThat(keys(harness, MultisetBuildSideState.LIST_STATE_NAME)).isEmpty();
            assertThat(keys(harness, MultisetBuildSideState.STATE_NAME))
                    .containsExactlyInAnyOrder("A", "B", "C", "D");
            assertThat(keys(harness, MultisetBuildSideState.SPILLED_STATE_NAME))
                    .containsExactly("C");
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement2(delete("B", 2, 10));
            harness.processElement2(delete("D", 5, 10));
            harness.processElement2(delete("C", 0, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME + 1));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "B"));
            harness.processElement1(probe("o3", "C"));
            harness.processElement1(probe("o4", "D"));

            assertThat(harness.takeOutput())
                    .hasSize(2 + manyRows - 1 + 2)
                    .startsWith(joined("o1", "A", 1, 10), joined("o1", "A", 1, 10))
                    .doesNotContain(
                            joined("o2", "B", 2, 10),
                            joined("o3", "C", 0, 10),
                            joined("o4", "D", 5, 10))
                    .contains(joined("o3", "C", manyRows - 1, 10))
                    .endsWith(joined("o4", "D", 4, 10), joined("o4", "D", 6, 10));
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
        }
    }

    /** The keys of the current subtask that have a value in a keyed state. */
    private static List<String> keys(JoinHarness harness, String stateName) {
        try (Stream<Object> keys =
                harness.getOperator()
                        .getKeyedStateBackend()
                        .getKeys(stateName, VoidNamespace.INSTANCE)) {
            return keys.map(key -> ((RowData) key).getString(0).toString())
                    .collect(Collectors.toList());
        }
    }

    /** A snapshot of a stand-in for an earlier layout, which got the build rows. */
    private OperatorSubtaskState snapshotOfStandIn(
            TwoInputStreamOperator<RowData, RowData, RowData> standIn,
            List<StreamRecord<RowData>> buildRows)
            throws Exception {
        JoinSpec spec = join();
        try (KeyedTwoInputStreamOperatorTestHarness<RowData, RowData, RowData, RowData> harness =
                new KeyedTwoInputStreamOperatorTestHarness<>(
                        standIn,
                        spec.probeKeySelector(),
                        spec.buildKeySelector(),
                        spec.probeKeySelector().getProducedType(),
                        MAX_PARALLELISM,
                        1,
                        0)) {
            harness.setStateBackend(createStateBackend());
            harness.setup();
            harness.open();
            for (StreamRecord<RowData> row : buildRows) {
                harness.processElement2(row);
            }
            return harness.snapshot(1L, 1L);
        }
    }

    /**
     * Keeps build rows as the layout before the current one did: per key a list of up to {@link
     * MultisetBuildSideState#MAX_INLINE_ROWS} rows, or past that a map of row to count and in the
     * list one marker row of kind {@code DELETE}.
     */
    private static final class ListLayoutStandIn extends MapLayoutStandIn {
        private static final long serialVersionUID = 1L;

        private transient ListState<RowData> list;
        private transient RowData marker;

        @Override
        public void open() throws Exception {
            super.open();
            InternalTypeInfo<RowData> buildType = InternalTypeInfo.of(BUILD_TYPE);
            list =
                    getKeyedStateStore()
                            .getListState(new ListStateDescriptor<>("build-row-list", buildType));
            GenericRowData nulls = new GenericRowData(BUILD_TYPE.getFieldCount());
            nulls.setRowKind(RowKind.DELETE);
            marker = buildType.toRowSerializer().toBinaryRow(nulls).copy();
        }

        @Override
        public void processElement2(StreamRecord<RowData> element) throws Exception {
            List<RowData> rows = new ArrayList<>();
            list.get().forEach(rows::add);
            if (rows.size() == 1 && rows.get(0).getRowKind() == RowKind.DELETE) {
                countInMap(element.getValue());
            } else if (rows.size() < MultisetBuildSideState.MAX_INLINE_ROWS) {
                rows.add(element.getValue());
                list.update(rows);
            } else {
                for (RowData row : rows) {
                    countInMap(row);
                }
                countInMap(element.getValue());
                list.update(List.of(marker));
            }
        }
    }

    /**
     * Keeps build rows as the earlier multiset layout did, row to count in a map, and nothing else.
     */
    private static class MapLayoutStandIn extends AbstractStreamOperator<RowData>
            implements TwoInputStreamOperator<RowData, RowData, RowData> {
        private static final long serialVersionUID = 1L;

        private transient MapState<RowData, Integer> rows;

        @Override
        public void open() throws Exception {
            super.open();
            rows =
                    getKeyedStateStore()
                            .getMapState(
                                    new MapStateDescriptor<>(
                                            "build-rows",
                                            InternalTypeInfo.of(BUILD_TYPE),
                                            Types.INT));
        }

        @Override
        public void processElement1(StreamRecord<RowData> element) {}

        @Override
        public void processElement2(StreamRecord<RowData> element) throws Exception {
            countInMap(element.getValue());
        }

        void countInMap(RowData row) throws Exception {
            Integer count = rows.get(row);
            rows.put(row, count == null ? 1 : count + 1);
        }
    }

    /**
     * A job without this library, a Flink 2.4 job whose operator ids match those of the savepoint
     * say, cannot read the operator state of the join: the class of a serializer it records is only
     * in this library.
     */
    @TestTemplate
    void savepointCannotBeRestoredWithoutThisLibrary() throws Exception {
        OperatorSubtaskState snapshot = snapshotsWithStateOfEveryKind(join())[1];
        ClassLoader withoutThisLibrary =
                new ClassLoader(classLoader()) {
                    @Override
                    protected Class<?> loadClass(String name, boolean resolve)
                            throws ClassNotFoundException {
                        if (name.startsWith("dev.lateralsnapshot.")) {
                            throw new ClassNotFoundException(name);
                        }
                        return super.loadClass(name, resolve);
                    }
                };

        assertThatThrownBy(() -> operatorStateMetaInfo(withoutThisLibrary, snapshot))
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
        OperatorSubtaskState snapshot = snapshotsWithStateOfEveryKind(join())[1];
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
                                    UnionPhaseState.FLINK_2_4_STATE_NAME,
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

    private static void assertKeyedState(
            StateMetaInfoSnapshot state,
            String kind,
            TypeSerializer<?> namespaceSerializer,
            TypeSerializer<?> valueSerializer) {
        assertThat(state.getBackendStateType()).isEqualTo(BackendStateType.KEY_VALUE);
        assertThat(state.getOption(CommonOptionsKeys.KEYED_STATE_TYPE)).isEqualTo(kind);
        assertThat(serializer(state, CommonSerializerKeys.NAMESPACE_SERIALIZER))
                .isEqualTo(namespaceSerializer);
        assertThat(serializer(state, CommonSerializerKeys.VALUE_SERIALIZER))
                .isEqualTo(valueSerializer);
    }

    private static void assertTimers(StateMetaInfoSnapshot state, TimerSerializer<?, ?> timers) {
        assertThat(state.getBackendStateType()).isEqualTo(BackendStateType.PRIORITY_QUEUE);
        assertThat(serializer(state, CommonSerializerKeys.VALUE_SERIALIZER)).isEqualTo(timers);
    }

    static TypeSerializer<?> serializer(StateMetaInfoSnapshot state, CommonSerializerKeys key) {
        return state.getTypeSerializerSnapshot(key).restoreSerializer();
    }

    static Map<String, StateMetaInfoSnapshot> operatorStateMetaInfo(
            OperatorSubtaskState... snapshots) throws IOException {
        return operatorStateMetaInfo(classLoader(), snapshots);
    }

    private static Map<String, StateMetaInfoSnapshot> operatorStateMetaInfo(
            ClassLoader userCodeClassLoader, OperatorSubtaskState... snapshots) throws IOException {
        Map<String, StateMetaInfoSnapshot> states = new HashMap<>();
        for (OperatorStateHandle handle : managedOperatorState(snapshots)) {
            OperatorBackendSerializationProxy proxy =
                    new OperatorBackendSerializationProxy(userCodeClassLoader);
            try (InputStream in = handle.openInputStream()) {
                proxy.read(new DataInputViewStreamWrapper(in));
            }
            index(proxy.getOperatorStateMetaInfoSnapshots(), states);
            index(proxy.getBroadcastStateMetaInfoSnapshots(), states);
        }
        return states;
    }

    /** The keyed state meta data, which full and incremental snapshots keep in other places. */
    static Map<String, StateMetaInfoSnapshot> keyedStateMetaInfo(OperatorSubtaskState... snapshots)
            throws IOException {
        Map<String, StateMetaInfoSnapshot> states = new HashMap<>();
        for (KeyedStateHandle handle : managedKeyedState(snapshots)) {
            StreamStateHandle metaData;
            if (handle instanceof IncrementalKeyedStateHandle) {
                metaData = ((IncrementalKeyedStateHandle) handle).getMetaDataStateHandle();
            } else {
                metaData = (KeyGroupsStateHandle) handle;
            }
            KeyedBackendSerializationProxy<?> proxy =
                    new KeyedBackendSerializationProxy<>(classLoader());
            try (InputStream in = metaData.openInputStream()) {
                proxy.read(new DataInputViewStreamWrapper(in));
            }
            index(proxy.getStateMetaInfoSnapshots(), states);
        }
        return states;
    }

    private static List<OperatorStateHandle> managedOperatorState(
            OperatorSubtaskState... snapshots) {
        return Arrays.stream(snapshots)
                .flatMap(snapshot -> snapshot.getManagedOperatorState().stream())
                .collect(Collectors.toList());
    }

    private static List<KeyedStateHandle> managedKeyedState(OperatorSubtaskState... snapshots) {
        return Arrays.stream(snapshots)
                .flatMap(snapshot -> snapshot.getManagedKeyedState().stream())
                .collect(Collectors.toList());
    }

    private static void index(
            List<StateMetaInfoSnapshot> snapshots, Map<String, StateMetaInfoSnapshot> states) {
        for (StateMetaInfoSnapshot state : snapshots) {
            states.put(state.getName(), state);
        }
    }

    private static ClassLoader classLoader() {
        return LateralSnapshotJoinStateLayoutTest.class.getClassLoader();
    }
}
