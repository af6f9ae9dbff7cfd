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

import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import java.util.Map;

/**
 * At most one build row per join key, for the reasons {@link SingleRowBuildSideState} gives:
 * inserts and updates replace the row, a retraction removes it without comparing.
 */
final class BroadcastSingleRowBuildSideState extends BroadcastBuildSideState {

    static final String STATE_NAME = "broadcast-build-row";

    private final BroadcastState<RowData, RowData> rows;

    BroadcastSingleRowBuildSideState(
            OperatorStateStore store,
            InternalTypeInfo<RowData> keyType,
            InternalTypeInfo<RowData> buildType)
            throws Exception {
        this(store.getBroadcastState(new MapStateDescriptor<>(STATE_NAME, keyType, buildType)));
    }

    private BroadcastSingleRowBuildSideState(BroadcastState<RowData, RowData> rows) {
        super(rows);
        this.rows = rows;
    }

    @Override
    String stateName() {
        return STATE_NAME;
    }

    @Override
    void add(RowData newRow) throws Exception {
        if (rows.get(currentKey()) == null) {
            rowsAdded(1);
        }
        rows.put(currentKey(), newRow);
    }

    @Override
    boolean retract(RowData oldRow) throws Exception {
        if (rows.get(currentKey()) == null) {
            return false;
        }
        rows.remove(currentKey());
        rowsAdded(-1);
        return true;
    }

    @Override
    boolean visitRows(RowVisitor visitor) throws Exception {
        return visitSingleRow(rows.get(currentKey()), visitor);
    }

    @Override
    void clear() {
        try {
            if (rows.contains(currentKey())) {
                rows.remove(currentKey());
                rowsAdded(-1);
            }
        } catch (Exception e) {
            throw new IllegalStateException("Could not clear the build row of a key.", e);
        }
    }

    @Override
    long countRows() throws Exception {
        long count = 0;
        for (Map.Entry<RowData, RowData> ignored : rows.entries()) {
            count++;
        }
        return count;
    }
}
