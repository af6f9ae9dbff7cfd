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

package dev.lateralsnapshot.runtime.operators.join.snapshot.broadcast;

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
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import javax.annotation.Nullable;

/**
 * The state of a subtask of the join with a broadcast build side. The operator is not keyed: every
 * subtask receives every build change and keeps the whole build side, and joins the probe rows that
 * reach it without any partitioning; it selects the key of each row itself ({@link BroadcastKeys}).
 *
 * <p>The build rows ({@link BroadcastBuildSideState}), the pending build changes and the held -U
 * rows ({@link BroadcastBuildChanges}) are broadcast state: a heap map on every state backend,
 * RocksDB included, of which every subtask writes its own copy into each checkpoint, and of which a
 * restore, at any parallelism, gives every subtask one old subtask's copy. That is right because
 * every subtask receives the same build changes and watermarks, and an aligned checkpoint's barrier
 * comes after the same ones on every subtask. The buffered probe rows are operator list state
 * ({@link BroadcastProbeBuffer}), spread evenly over the subtasks of a restore. The clocks of the
 * state TTL are kept per subtask and not checkpointed ({@link BroadcastStateTtl}).
 */
final class BroadcastJoinState implements JoinState {

    private final LateralSnapshotJoinParameters parameters;
    private final RowDataKeySelector probeKeySelector;
    private final RowDataKeySelector buildKeySelector;
    private final long buildRowsWarningThreshold;

    private OperatorStateStore operatorState;
    private BroadcastProbeBuffer probeBuffer;
    private BroadcastBuildChanges changes;
    private BroadcastBuildSideState<?> buildSide;
    private BroadcastKeys keys;
    @Nullable private BroadcastStateTtl ttl;

    BroadcastJoinState(
            LateralSnapshotJoinParameters parameters,
            RowDataKeySelector probeKeySelector,
            RowDataKeySelector buildKeySelector,
            long buildRowsWarningThreshold) {
        this.parameters = parameters;
        this.probeKeySelector = probeKeySelector;
        this.buildKeySelector = buildKeySelector;
        this.buildRowsWarningThreshold = buildRowsWarningThreshold;
    }

    @Override
    public void initialize(OperatorStateStore operatorState, boolean restored) throws Exception {
        if (restored) {
            checkRestoredBuildSide(operatorState);
        }
        this.operatorState = operatorState;
        probeBuffer = new BroadcastProbeBuffer(operatorState, parameters.probeType());
        changes =
                new BroadcastBuildChanges(
                        parameters,
                        operatorState,
                        new BroadcastHeldUpdateBefores(
                                operatorState,
                                buildKeySelector.getProducedType(),
                                parameters.buildType()));
    }

    /**
     * Fails on a snapshot that keeps the build side otherwise than this job: taken by the keyed
     * join, whose build side this join cannot read and would start the join phase without, or in
     * the other layout.
     */
    private void checkRestoredBuildSide(OperatorStateStore operatorState) {
        if (operatorState
                .getRegisteredStateNames()
                .contains(LateralSnapshotJoinStateNames.PROBE_BUFFER_SEQUENCE)) {
            throw new IllegalStateException(
                    "The LATERAL SNAPSHOT join cannot restore its build side: the savepoint was"
                            + " taken by a join that partitions both inputs by the join keys"
                            + " ('table.exec.lateral-snapshot.build-distribution' = 'hash'), but"
                            + " this job broadcasts the build side. Restore with the build-side"
                            + " distribution of the job that took the savepoint.");
        }
        String other =
                parameters.buildSideLayout() == BuildSideLayout.MULTISET
                        ? LateralSnapshotJoinStateNames.BROADCAST_BUILD_ROW
                        : LateralSnapshotJoinStateNames.BROADCAST_BUILD_ROWS;
        if (operatorState.getRegisteredBroadcastStateNames().contains(other)) {
            throw new IllegalStateException(
                    "The LATERAL SNAPSHOT join cannot restore its build side: the savepoint keeps"
                            + " it in state '"
                            + other
                            + "', but this job keeps it as "
                            + parameters.buildSideLayout()
                            + ". This happens when a unique key of the build input changed."
                            + " Restore with the build input of the job that took the savepoint.");
        }
    }

    @Override
    public void open(JoinStateContext context) throws Exception {
        InternalTypeInfo<RowData> keyType = buildKeySelector.getProducedType();
        buildSide =
                BroadcastBuildSideState.create(
                        parameters.buildSideLayout(),
                        operatorState,
                        keyType,
                        parameters.buildType(),
                        new BuildRowsWarning(
                                buildRowsWarningThreshold,
                                context.runtimeContext()
                                        .getTaskInfo()
                                        .getNumberOfParallelSubtasks()));
        keys = new BroadcastKeys(probeKeySelector, buildKeySelector, buildSide);
        probeBuffer.open(keys);
        changes.open(keys, context::released);
        if (parameters.stateTtl() > 0) {
            ttl = new BroadcastStateTtl(parameters.stateTtl(), keys, buildSide, context);
            if (context.isJoinPhase()) {
                // The clocks are not checkpointed: after a restore every key's starts anew.
                ttl.startAll();
            }
        }
    }

    @Override
    public void snapshot() throws Exception {
        probeBuffer.writeToState();
        changes.writeToState();
    }

    @Override
    public RowData enterProbeKey(RowData probeRow) throws Exception {
        return keys.enterProbeKey(probeRow);
    }

    @Override
    public RowData enterBuildKey(RowData change) throws Exception {
        return keys.enterBuildKey(change);
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
    public String heapResidence() {
        return "With 'table.exec.lateral-snapshot.build-distribution' = 'broadcast' every subtask"
                + " keeps the whole build side, and the probe rows it buffers during the load"
                + " phase, as objects on the heap, whatever the state backend. Set it to 'hash'"
                + " for a build side this large, or give the TaskManagers more heap"
                + " ('taskmanager.memory.task.heap.size').";
    }

    /** The build rows this subtask holds, every occurrence counted. */
    @VisibleForTesting
    long buildSideRows() {
        return buildSide.rowCount();
    }

    @Override
    public String toString() {
        return "broadcast, kept as "
                + parameters.buildSideLayout()
                + ", "
                + (buildSide == null ? 0 : buildSide.rowCount())
                + " build rows on this subtask";
    }
}
