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

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.MapSerializer;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.api.java.typeutils.runtime.TupleSerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot.BackendStateType;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot.CommonOptionsKeys;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot.CommonSerializerKeys;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.TestTemplate;

import java.util.Map;

import static dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateLayoutTest.keyedStateMetaInfo;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateLayoutTest.operatorStateMetaInfo;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateLayoutTest.serializer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Savepoints depend on the names, kinds and serializers of the broadcast join's state, read here
 * from the meta data of real snapshots. The broadcast join has no keyed state.
 */
class BroadcastLateralSnapshotJoinStateLayoutTest extends BroadcastLateralSnapshotJoinTestBase {

    private static final TypeSerializer<?> KEY_SERIALIZER =
            new RowDataSerializer(RowType.of(STRING));
    private static final TypeSerializer<?> PROBE_ROW_SERIALIZER = new RowDataSerializer(PROBE_TYPE);
    private static final TypeSerializer<?> BUILD_ROW_SERIALIZER = new RowDataSerializer(BUILD_TYPE);

    @TestTemplate
    @SuppressWarnings({"unchecked", "rawtypes"})
    void keepsStateNamesKindsAndSerializersOfMultisetLayoutWithTtl() throws Exception {
        OperatorSubtaskState[] snapshots = snapshotsWithStateOfEveryKind(join().stateTtl(1000));

        Map<String, StateMetaInfoSnapshot> state = operatorStateMetaInfo(snapshots);
        assertThat(state)
                .containsOnlyKeys(
                        "phase",
                        "lateral-snapshot-phase",
                        "max-build-time",
                        "build-watermark",
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
        assertThat(keyedStateMetaInfo(snapshots)).isEmpty();
    }

    @TestTemplate
    void keepsStateNameAndSerializerOfOneRowPerKeyLayout() throws Exception {
        OperatorSubtaskState[] snapshots =
                snapshotsWithStateOfEveryKind(join().layout(BuildSideLayout.ONE_ROW_PER_KEY));

        Map<String, StateMetaInfoSnapshot> state = operatorStateMetaInfo(snapshots);
        assertThat(state)
                .containsKey("broadcast-build-row")
                .doesNotContainKey("broadcast-build-rows");
        assertBroadcastState(
                state.get("broadcast-build-row"), KEY_SERIALIZER, BUILD_ROW_SERIALIZER);
    }

    @TestTemplate
    void refusesToRestoreBuildSideKeptInOtherLayout() throws Exception {
        OperatorSubtaskState joining = snapshotsWithStateOfEveryKind(join())[1];

        try (BroadcastJoinHarness harness =
                broadcastHarness(join().layout(BuildSideLayout.ONE_ROW_PER_KEY))) {
            assertThatThrownBy(() -> harness.initializeState(joining))
                    .hasStackTraceContaining(
                            "the savepoint keeps it in state 'broadcast-build-rows', but this job"
                                    + " keeps it as ONE_ROW_PER_KEY.");
        }
    }

    /**
     * Two snapshots that between them have a value in every state: one in the load phase with a
     * buffered probe row, one in the join phase with build rows, a pending change and a held -U.
     */
    private OperatorSubtaskState[] snapshotsWithStateOfEveryKind(JoinSpec spec) throws Exception {
        try (BroadcastJoinHarness harness = broadcastHarness(spec)) {
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

    private static void assertListState(
            StateMetaInfoSnapshot state, String distribution, TypeSerializer<?> valueSerializer) {
        assertThat(state.getBackendStateType()).isEqualTo(BackendStateType.OPERATOR);
        assertThat(state.getOption(CommonOptionsKeys.OPERATOR_STATE_DISTRIBUTION_MODE))
                .isEqualTo(distribution);
        assertThat(serializer(state, CommonSerializerKeys.VALUE_SERIALIZER))
                .isEqualTo(valueSerializer);
    }

    private static void assertBroadcastState(
            StateMetaInfoSnapshot state,
            TypeSerializer<?> keySerializer,
            TypeSerializer<?> valueSerializer) {
        assertThat(state.getBackendStateType()).isEqualTo(BackendStateType.BROADCAST);
        assertThat(state.getOption(CommonOptionsKeys.OPERATOR_STATE_DISTRIBUTION_MODE))
                .isEqualTo("BROADCAST");
        assertThat(serializer(state, CommonSerializerKeys.KEY_SERIALIZER)).isEqualTo(keySerializer);
        assertThat(serializer(state, CommonSerializerKeys.VALUE_SERIALIZER))
                .isEqualTo(valueSerializer);
    }
}
