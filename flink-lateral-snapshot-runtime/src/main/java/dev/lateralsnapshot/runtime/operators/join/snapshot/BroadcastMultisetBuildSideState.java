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
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.MapTypeInfo;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import java.util.HashMap;
import java.util.Map;

/**
 * Build rows as a multiset per join key: key to (row to number of occurrences). An insert or a
 * retraction touches one entry of its key's map, however many rows the key has, so the single key
 * of a join without equality predicate costs no more per change than any other.
 */
final class BroadcastMultisetBuildSideState extends BroadcastBuildSideState<Map<RowData, Integer>> {

    static final String STATE_NAME = "broadcast-build-rows";

    private final RowDataSerializer serializer;

    BroadcastMultisetBuildSideState(
            OperatorStateStore store,
            InternalTypeInfo<RowData> keyType,
            InternalTypeInfo<RowData> buildType)
            throws Exception {
        this(
                store.getBroadcastState(
                        new MapStateDescriptor<>(
                                STATE_NAME, keyType, new MapTypeInfo<>(buildType, Types.INT))),
                buildType.toRowSerializer());
    }

    private BroadcastMultisetBuildSideState(
            BroadcastState<RowData, Map<RowData, Integer>> rows, RowDataSerializer serializer)
            throws Exception {
        super(rows);
        this.serializer = serializer;
    }

    /** Rows are compared as binary rows, for the reason {@link MultisetBuildSideState} gives. */
    private RowData binary(RowData row) {
        return row instanceof BinaryRowData ? row : serializer.toBinaryRow(row).copy();
    }

    @Override
    String stateName() {
        return STATE_NAME;
    }

    @Override
    void add(RowData row) throws Exception {
        Map<RowData, Integer> keyRows = rowsOfKey();
        if (keyRows == null) {
            keyRows = new HashMap<>();
            putRowsOfKey(keyRows);
        }
        keyRows.merge(binary(row), 1, Integer::sum);
        rowsAdded(1);
    }

    @Override
    boolean retract(RowData row) throws Exception {
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
    boolean visitRows(RowVisitor visitor) throws Exception {
        Map<RowData, Integer> keyRows = rowsOfKey();
        if (keyRows == null) {
            return false;
        }
        for (Map.Entry<RowData, Integer> entry : keyRows.entrySet()) {
            visitor.visit(entry.getKey(), entry.getValue());
        }
        return true;
    }

    @Override
    void clear() {
        try {
            Map<RowData, Integer> keyRows = rowsOfKey();
            if (keyRows != null) {
                rowsAdded(-occurrences(keyRows));
                removeKey();
            }
        } catch (Exception e) {
            throw new IllegalStateException("Could not clear the build rows of a key.", e);
        }
    }

    @Override
    long countRows() throws Exception {
        long count = 0;
        for (Map<RowData, Integer> keyRows : allRows()) {
            count += occurrences(keyRows);
        }
        return count;
    }

    private static long occurrences(Map<RowData, Integer> keyRows) {
        long count = 0;
        for (int occurrences : keyRows.values()) {
            count += occurrences;
        }
        return count;
    }
}
