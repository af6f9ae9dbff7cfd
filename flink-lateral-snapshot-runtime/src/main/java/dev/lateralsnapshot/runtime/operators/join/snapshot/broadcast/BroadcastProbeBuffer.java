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

import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateNames;
import dev.lateralsnapshot.runtime.operators.join.snapshot.ProbeBuffer;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * The probe rows a subtask of the broadcast join buffered, in arrival order, on the heap; a
 * snapshot writes those not joined yet into operator list state, which a restore spreads evenly
 * over the subtasks. The drain joins them in arrival order.
 */
final class BroadcastProbeBuffer implements ProbeBuffer {

    private final ListState<RowData> state;

    /** The buffered rows in arrival order; those before {@link #drainPosition} are joined. */
    private final ArrayList<RowData> rows = new ArrayList<>();

    private int drainPosition;

    private BroadcastKeys keys;

    /** Per key, the rows the drain under way has not joined yet; null when none is under way. */
    @Nullable private Map<RowData, Integer> rowsToDrainByKey;

    /** Reads back the rows a restore brought. */
    BroadcastProbeBuffer(OperatorStateStore store, InternalTypeInfo<RowData> probeType)
            throws Exception {
        this.state =
                store.getListState(
                        new ListStateDescriptor<>(
                                LateralSnapshotJoinStateNames.BROADCAST_PROBE_BUFFER, probeType));
        for (RowData probeRow : state.get()) {
            rows.add(probeRow);
        }
    }

    void open(BroadcastKeys keys) {
        this.keys = keys;
    }

    void writeToState() throws Exception {
        state.update(rows.subList(drainPosition, rows.size()));
    }

    /** In the load phase the key is not needed, and not selected; during a drain it is current. */
    @Override
    public void add(RowData probeRow) {
        rows.add(probeRow);
        if (rowsToDrainByKey != null) {
            rowsToDrainByKey.merge(keys.currentKey(), 1, Integer::sum);
        }
    }

    @Override
    public boolean isEmpty() {
        return drainPosition == rows.size();
    }

    @Override
    public Drain startDrain() throws Exception {
        rowsToDrainByKey = new HashMap<>();
        for (int i = drainPosition; i < rows.size(); i++) {
            rowsToDrainByKey.merge(keys.probeKey(rows.get(i)), 1, Integer::sum);
        }
        return new ArrivalOrderDrain();
    }

    /** Drains in arrival order; a probe row counts its output rows and at least one. */
    private final class ArrivalOrderDrain implements Drain {

        @Override
        public boolean holdsCurrentKey() {
            return rowsToDrainByKey.containsKey(keys.currentKey());
        }

        @Override
        public boolean drain(long budget, long nanos, DrainedRows joiner) throws Exception {
            long start = System.nanoTime();
            long spent = 0;
            while (drainPosition < rows.size()) {
                RowData probeRow = rows.set(drainPosition++, null);
                RowData key = keys.enterProbeKey(probeRow);
                rowsToDrainByKey.computeIfPresent(key, (k, left) -> left == 1 ? null : left - 1);
                spent += joiner.join(probeRow, key, false);
                if (spent >= budget || System.nanoTime() - start >= nanos) {
                    return drainPosition == rows.size() && clear();
                }
            }
            return clear();
        }

        private boolean clear() {
            rows.clear();
            rows.trimToSize();
            drainPosition = 0;
            rowsToDrainByKey = null;
            return true;
        }
    }
}
