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
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinParameters;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateNames;
import dev.lateralsnapshot.runtime.operators.join.snapshot.ReleasedBuildChanges;

import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.ListTypeInfo;
import org.apache.flink.table.data.RowData;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The pending build changes and held -U rows of the broadcast join. Pending changes wait on the
 * heap by time, each time's in arrival order, and go into broadcast state when a snapshot is taken;
 * held -U rows are kept by {@link BroadcastHeldUpdateBefores}. Every subtask receives the same
 * changes and watermarks, so every subtask's copy is the same.
 */
final class BroadcastBuildChanges implements BuildChangeBuffer {

    private final LateralSnapshotJoinParameters parameters;
    private final BroadcastState<Long, List<RowData>> state;
    private final BroadcastHeldUpdateBefores held;

    /** Build changes by time, each time's in arrival order; written to state by a snapshot. */
    private final TreeMap<Long, List<RowData>> pending = new TreeMap<>();

    private BroadcastKeys keys;
    private Supplier<ReleasedBuildChanges> released;

    /** Reads back the changes a restore brought. */
    BroadcastBuildChanges(
            LateralSnapshotJoinParameters parameters,
            OperatorStateStore store,
            BroadcastHeldUpdateBefores held)
            throws Exception {
        this.parameters = parameters;
        this.held = held;
        this.state =
                store.getBroadcastState(
                        new MapStateDescriptor<>(
                                LateralSnapshotJoinStateNames.BROADCAST_PENDING_BUILD_CHANGES,
                                Types.LONG,
                                new ListTypeInfo<>(parameters.buildType())));
        for (Map.Entry<Long, List<RowData>> entry : state.entries()) {
            pending.put(entry.getKey(), new ArrayList<>(entry.getValue()));
        }
    }

    void open(BroadcastKeys keys, Supplier<ReleasedBuildChanges> released) {
        this.keys = keys;
        this.released = released;
    }

    @Override
    public void add(long time, RowData change) {
        pending.computeIfAbsent(time, t -> new ArrayList<>()).add(change);
    }

    @Override
    public void hold(long time, long releaseAt, RowData updateBefore) throws Exception {
        held.hold(keys.currentKey(), time, releaseAt, updateBefore);
    }

    @Override
    public List<RowData> takeHeld() throws Exception {
        return held.takeAll(keys.currentKey());
    }

    /**
     * Applies the pending changes up to a build time in time order, then lets the held -U rows go
     * alone that the time lets go. A held -U has no change of its key after it, and none before it
     * with a later time than the one that lets it go, so letting it go after the others keeps the
     * order of its key's changes.
     */
    @Override
    public void releaseUpTo(long time) throws Exception {
        ReleasedBuildChanges to = released.get();
        while (!pending.isEmpty() && pending.firstKey() <= time) {
            for (RowData change : pending.pollFirstEntry().getValue()) {
                keys.enterBuildKey(change);
                to.apply(change);
            }
        }
        for (RowData updateBefore : held.takeReleased(time)) {
            keys.enterBuildKey(updateBefore);
            to.addPending(parameters.timeOf(updateBefore), updateBefore);
        }
    }

    void writeToState() throws Exception {
        state.clear();
        for (Map.Entry<Long, List<RowData>> entry : pending.entrySet()) {
            state.put(entry.getKey(), entry.getValue());
        }
    }
}
