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

import dev.lateralsnapshot.runtime.internal.ValueStateWrites;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateNames;

import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import javax.annotation.Nullable;

/**
 * At most one build row per join key: the equality keys contain a unique key of the build input. A
 * probe row costs one state read. Inserts and updates replace the row; a retraction removes it
 * without comparing, because under a unique key it can only refer to the current row, and an upsert
 * delete may carry nothing but the key.
 */
final class SingleRowBuildSideState extends KeyedBuildSideState {

    private final ValueState<RowData> row;

    /**
     * Where the backend has them, the writes that hold the rows added between {@link
     * #startHoldingAdds} and {@link #writeHeldAdds}: an add replaces the key's row without reading
     * it, so a release of many build changes writes them in the store's order of keys.
     */
    @Nullable private ValueStateWrites<RowData> heldAdds;

    private boolean holdingAdds;

    SingleRowBuildSideState(
            KeyedStateStore store,
            InternalTypeInfo<RowData> buildType,
            @Nullable KeyContext indexKeys,
            boolean stampKeys) {
        this.row =
                indexed(
                        store.getState(
                                new ValueStateDescriptor<>(
                                        LateralSnapshotJoinStateNames.BUILD_ROW, buildType)),
                        indexKeys,
                        stampKeys);
    }

    @Override
    String stateName() {
        return LateralSnapshotJoinStateNames.BUILD_ROW;
    }

    /** Every form of this layout is the one it reads. */
    @Override
    void checkRestoredLayout(KeyedStateBackend<Object> backend, KeyContext keys) {}

    @Override
    void holdAddsIn(KeyedStateBackend<Object> backend) {
        heldAdds =
                ValueStateWrites.<RowData>open(backend, LateralSnapshotJoinStateNames.BUILD_ROW)
                        .orElse(null);
    }

    @Override
    public void startHoldingAdds() {
        holdingAdds = heldAdds != null;
    }

    @Override
    public void writeHeldAdds() throws Exception {
        holdingAdds = false;
        flushHeldAdds();
    }

    /** Before every read and removal of the state: writes the rows held out, if any. */
    private void flushHeldAdds() throws Exception {
        if (heldAdds != null) {
            heldAdds.write();
        }
    }

    @Override
    public void add(RowData newRow) throws Exception {
        if (holdingAdds) {
            heldAdds.put(newRow);
        } else {
            row.update(newRow);
        }
    }

    @Override
    public boolean retract(RowData oldRow) throws Exception {
        flushHeldAdds();
        if (row.value() == null) {
            return false;
        }
        row.clear();
        return true;
    }

    @Override
    public boolean visitRows(RowVisitor visitor) throws Exception {
        flushHeldAdds();
        return visitSingleRow(row.value(), visitor);
    }

    @Override
    public KeyRows readRows() throws Exception {
        flushHeldAdds();
        return singleRow(row.value());
    }

    @Override
    public KeyRows readRowsInKeyOrder(long version) throws Exception {
        flushHeldAdds();
        return singleRow(valueInKeyOrder(row, version));
    }

    @Override
    public boolean isEmpty() throws Exception {
        flushHeldAdds();
        return row.value() == null;
    }

    @Override
    public void clear() throws Exception {
        flushHeldAdds();
        row.clear();
    }
}
