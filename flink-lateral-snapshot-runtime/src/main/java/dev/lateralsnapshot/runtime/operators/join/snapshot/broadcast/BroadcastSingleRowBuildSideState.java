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

import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

/**
 * At most one build row per join key, in broadcast state: the key maps to its row. Inserts and
 * updates replace the row; a retraction removes it without comparing, as in the keyed layout with
 * one row per key.
 */
final class BroadcastSingleRowBuildSideState extends BroadcastBuildSideState<RowData> {

    BroadcastSingleRowBuildSideState(
            OperatorStateStore store,
            InternalTypeInfo<RowData> keyType,
            InternalTypeInfo<RowData> buildType,
            BuildRowsWarning warning)
            throws Exception {
        super(
                store.getBroadcastState(
                        new MapStateDescriptor<>(
                                LateralSnapshotJoinStateNames.BROADCAST_BUILD_ROW,
                                keyType,
                                buildType)),
                warning);
    }

    @Override
    public void add(RowData newRow) throws Exception {
        if (isEmpty()) {
            rowsAdded(1);
        }
        putRowsOfKey(newRow);
    }

    @Override
    public boolean retract(RowData oldRow) throws Exception {
        if (isEmpty()) {
            return false;
        }
        removeKey();
        rowsAdded(-1);
        return true;
    }

    @Override
    boolean visit(RowData row, RowVisitor visitor) throws Exception {
        return visitSingleRow(row, visitor);
    }

    @Override
    long countRows(RowData row) {
        return 1;
    }
}
