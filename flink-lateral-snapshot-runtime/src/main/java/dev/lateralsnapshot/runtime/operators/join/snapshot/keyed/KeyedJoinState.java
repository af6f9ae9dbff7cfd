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

import dev.lateralsnapshot.runtime.internal.ValueStateCursor;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildChangeBuffer;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildKeyTtl;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideLayout;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideState;
import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinState;
import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinStateContext;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinParameters;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateNames;
import dev.lateralsnapshot.runtime.operators.join.snapshot.ProbeBuffer;

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.internal.InternalListState;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.table.data.RowData;

import javax.annotation.Nullable;

import java.util.List;
import java.util.Set;

/**
 * The state of a subtask of the join whose inputs are both partitioned by the join keys: keyed
 * state under Flink's current key, which Flink sets before every record and timer. The package
 * comment says which class keeps what, and when what waits on the heap reaches the state.
 */
final class KeyedJoinState implements JoinState {

    /** Keyed states of build side layouts that this version does not read. */
    private static final List<String> UNREAD_LAYOUT_STATES = List.of("build-row-list");

    private final LateralSnapshotJoinParameters parameters;
    private boolean restored;
    private KeyedProbeBuffer probeBuffer;
    @Nullable private StateTtlClock ttl;
    private KeyedBuildChanges changes;
    private KeyedBuildSideState buildSide;
    private StateBackendKind backendKind;
    private JoinStateContext context;

    KeyedJoinState(LateralSnapshotJoinParameters parameters) {
        this.parameters = parameters;
    }

    @Override
    public void initialize(OperatorStateStore operatorState, boolean restored) throws Exception {
        this.restored = restored;
        if (restored) {
            checkNotBroadcast(operatorState);
        }
        probeBuffer = new KeyedProbeBuffer(operatorState);
        if (parameters.stateTtl() > 0) {
            ttl = new StateTtlClock(parameters.stateTtl(), operatorState);
        }
    }

    /**
     * Fails on a snapshot of the broadcast join, whose build side this join cannot read and would
     * start the join phase without.
     */
    private static void checkNotBroadcast(OperatorStateStore operatorState) {
        Set<String> broadcastStates = operatorState.getRegisteredBroadcastStateNames();
        if (broadcastStates.contains(LateralSnapshotJoinStateNames.BROADCAST_BUILD_ROWS)
                || broadcastStates.contains(LateralSnapshotJoinStateNames.BROADCAST_BUILD_ROW)) {
            throw new IllegalStateException(
                    "The LATERAL SNAPSHOT join cannot restore its build side: the savepoint was"
                            + " taken by a join that broadcasts the build side"
                            + " ('table.exec.lateral-snapshot.build-distribution' = 'broadcast'),"
                            + " but this job partitions both inputs by the join keys. Restore with"
                            + " the build-side distribution of the job that took the savepoint.");
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open(JoinStateContext context) throws Exception {
        this.context = context;
        KeyedStateBackend<Object> backend = context.keyedStateBackend();
        KeyedStateStore store = context.keyedStateStore();
        KeyContext keys = context.keyContext();
        backendKind = StateBackendKind.of(backend);
        probeBuffer.open(backend, store, keys, parameters.probeType(), backendKind);
        PendingBuildChanges pending =
                new PendingBuildChanges(
                        backend,
                        (InternalListState<Object, Long, RowData>)
                                backend.getOrCreateKeyedState(
                                        LongSerializer.INSTANCE,
                                        new ListStateDescriptor<>(
                                                LateralSnapshotJoinStateNames.PENDING_BUILD_CHANGES,
                                                parameters.buildType())),
                        LateralSnapshotJoinStateNames.PENDING_BUILD_CHANGES);
        changes =
                new KeyedBuildChanges(
                        pending,
                        new HeldUpdateBefores(backend, store, parameters.buildType()),
                        context);
        // Where the backend holds the state's objects, every probe row's read of its key's rows
        // goes to an index of the same objects; a backend of bytes would need a second copy.
        buildSide =
                KeyedBuildSideState.create(
                        parameters.buildSideLayout(),
                        store,
                        parameters.buildType(),
                        backendKind == StateBackendKind.OBJECTS_ON_HEAP ? keys : null,
                        ttl != null);
        ValueStateCursor.open(backend, buildSide.stateName())
                .ifPresent(cursor -> buildSide.readInKeyOrderWith(cursor, keys));
        buildSide.holdAddsIn(backend);
        if (ttl != null) {
            ttl.open(context, buildSide);
        }
        if (restored) {
            openRestored(backend, keys);
        }
    }

    private void openRestored(KeyedStateBackend<Object> backend, KeyContext keys) throws Exception {
        checkRestoredLayout(backend);
        IndexedValueState<?> index = buildSide.index();
        if (index != null) {
            for (Object key : KeyedStateKeys.keysOf(backend, buildSide.stateName())) {
                keys.setCurrentKey(key);
                index.indexCurrentKey();
            }
        }
        buildSide.checkRestoredLayout(backend, keys);
        changes.readRestored();
        if (ttl != null && context.restoredBothPhases()) {
            ttl.startStoppedClocks();
        }
    }

    /** Fails when the savepoint keeps the build side in another layout than this job. */
    private void checkRestoredLayout(KeyedStateBackend<Object> backend) {
        List<String> others =
                parameters.buildSideLayout() == BuildSideLayout.MULTISET
                        ? List.of(LateralSnapshotJoinStateNames.BUILD_ROW)
                        : List.of(
                                LateralSnapshotJoinStateNames.BUILD_ROW_MULTISET,
                                LateralSnapshotJoinStateNames.BUILD_ROWS_SPILLED);
        for (String other : others) {
            if (KeyedStateKeys.hasKeys(backend, other)) {
                throw new IllegalStateException(
                        "The LATERAL SNAPSHOT join cannot restore its build side: the savepoint keeps"
                                + " it in state '"
                                + other
                                + "', but this job keeps it as "
                                + parameters.buildSideLayout()
                                + " in state '"
                                + buildSide.stateName()
                                + "'. This happens when a unique key of the build input changed."
                                + " Restore with the build input of the job that took the"
                                + " savepoint.");
            }
        }
        for (String unread : UNREAD_LAYOUT_STATES) {
            if (KeyedStateKeys.hasKeys(backend, unread)) {
                throw new IllegalStateException(
                        "The LATERAL SNAPSHOT join cannot restore its build side: the savepoint keeps"
                                + " build rows in state '"
                                + unread
                                + "', a layout that was never released and that this version does"
                                + " not read. Restore from a savepoint taken by a released version"
                                + " of this library, or start the job without one.");
            }
        }
    }

    @Override
    public void snapshot() throws Exception {
        probeBuffer.snapshot();
        changes.writeToState();
        if (ttl != null) {
            ttl.snapshotState();
        }
    }

    @Override
    public RowData enterProbeKey(RowData probeRow) {
        return (RowData) context.keyContext().getCurrentKey();
    }

    @Override
    public RowData enterBuildKey(RowData change) {
        return (RowData) context.keyContext().getCurrentKey();
    }

    @Override
    public BuildSideState buildSide() {
        return buildSide;
    }

    @Override
    public ProbeBuffer probeBuffer() {
        return probeBuffer;
    }

    @Override
    public BuildChangeBuffer changes() {
        return changes;
    }

    @Override
    @Nullable
    public BuildKeyTtl ttl() {
        return ttl;
    }

    @Override
    @Nullable
    public String heapResidence() {
        return backendKind == StateBackendKind.OBJECTS_ON_HEAP
                ? "On the 'hashmap' state backend the join keeps its build rows, the build changes"
                        + " that wait for the build watermark and the probe rows it buffers during"
                        + " the load phase as objects on the heap. Use the RocksDB state backend"
                        + " ('state.backend.type' = 'rocksdb'), which keeps them on disk, give the"
                        + " TaskManagers more heap ('taskmanager.memory.task.heap.size'), or run"
                        + " the join at a higher parallelism."
                : null;
    }

    /** Whether probe rows read the build rows through an index of the keys rather than state. */
    @VisibleForTesting
    boolean readsBuildRowsThroughIndex() {
        return buildSide.index() != null;
    }

    @Override
    public String toString() {
        return "hashed by the join keys, kept as "
                + parameters.buildSideLayout()
                + " on a backend of "
                + (backendKind == StateBackendKind.OBJECTS_ON_HEAP ? "objects" : "bytes");
    }
}
