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
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.MapTypeInfo;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import java.util.HashMap;
import java.util.Map;

/**
 * Build rows as a multiset, in broadcast state: the key maps to its rows, each with its number of
 * occurrences. Broadcast state lives on the heap whatever the backend, so a key's rows are one map
 * that a change updates in place.
 */
final class BroadcastMultisetBuildSideState extends BroadcastBuildSideState<Map<RowData, Integer>> {

    private final RowDataSerializer serializer;

    BroadcastMultisetBuildSideState(
            OperatorStateStore store,
            InternalTypeInfo<RowData> keyType,
            InternalTypeInfo<RowData> buildType,
            BuildRowsWarning warning)
            throws Exception {
        super(
                store.getBroadcastState(
                        new MapStateDescriptor<>(
                                LateralSnapshotJoinStateNames.BROADCAST_BUILD_ROWS,
                                keyType,
                                new MapTypeInfo<>(buildType, Types.INT))),
                warning);
        this.serializer = buildType.toRowSerializer();
    }

    /**
     * Rows are compared as binary rows: a map matches keys with {@code equals}, which holds between
     * two binary rows but not between a binary row restored from a snapshot and an equal row of
     * another class. Rows from the network are binary already.
     */
    private RowData binary(RowData row) {
        return row instanceof BinaryRowData ? row : serializer.toBinaryRow(row).copy();
    }

    @Override
    public void add(RowData row) throws Exception {
        Map<RowData, Integer> keyRows = rowsOfKey();
        if (keyRows == null) {
            keyRows = new HashMap<>();
            putRowsOfKey(keyRows);
        }
        keyRows.merge(binary(row), 1, Integer::sum);
        rowsAdded(1);
    }

    @Override
    public boolean retract(RowData row) throws Exception {
        Map<RowData, Integer> keyRows = rowsOfKey();
        if (keyRows == null) {
            return false;
        }
        RowData binaryRow = binary(row);
        Integer count = keyRows.get(binaryRow);
        if (count == null) {
            return false;
        }
        if (count == 1) {
            keyRows.remove(binaryRow);
            if (keyRows.isEmpty()) {
                removeKey();
            }
        } else {
            keyRows.put(binaryRow, count - 1);
        }
        rowsAdded(-1);
        return true;
    }

    @Override
    boolean visit(Map<RowData, Integer> keyRows, RowVisitor visitor) throws Exception {
        for (Map.Entry<RowData, Integer> entry : keyRows.entrySet()) {
            visitor.visit(entry.getKey(), entry.getValue());
        }
        return true;
    }

    @Override
    long countRows(Map<RowData, Integer> keyRows) {
        long count = 0;
        for (int occurrences : keyRows.values()) {
            count += occurrences;
        }
        return count;
    }
}
