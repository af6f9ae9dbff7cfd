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

import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import java.util.Iterator;
import java.util.Map;

/**
 * Build rows as a multiset: row to number of occurrences. An insert or a retraction touches one map
 * entry, whatever the number of rows under the key, so a key with many rows (or the single key of a
 * join without equality predicate) never costs more than one entry per change.
 */
final class MultisetBuildSideState extends BuildSideState {

    static final String STATE_NAME = "build-rows";

    private final MapState<RowData, Integer> rows;
    private final RowDataSerializer serializer;

    MultisetBuildSideState(KeyedStateStore store, InternalTypeInfo<RowData> buildType) {
        this.rows = store.getMapState(new MapStateDescriptor<>(STATE_NAME, buildType, Types.INT));
        this.serializer = buildType.toRowSerializer();
    }

    /**
     * Rows are compared as binary rows: a heap state backend matches map keys with {@code equals},
     * which holds between two binary rows but not between a binary row restored from a snapshot and
     * an equal row of another class. Rows from the network are binary already.
     */
    private RowData binary(RowData row) {
        return row instanceof BinaryRowData ? row : serializer.toBinaryRow(row).copy();
    }

    @Override
    String stateName() {
        return STATE_NAME;
    }

    @Override
    void add(RowData row) throws Exception {
        RowData key = binary(row);
        Integer count = rows.get(key);
        rows.put(key, count == null ? 1 : count + 1);
    }

    @Override
    boolean retract(RowData row) throws Exception {
        RowData key = binary(row);
        Integer count = rows.get(key);
        if (count == null) {
            return false;
        }
        if (count == 1) {
            rows.remove(key);
        } else {
            rows.put(key, count - 1);
        }
        return true;
    }

    @Override
    boolean visitRows(RowVisitor visitor) throws Exception {
        Iterator<Map.Entry<RowData, Integer>> it = rows.iterator();
        if (!it.hasNext()) {
            return false;
        }
        do {
            Map.Entry<RowData, Integer> entry = it.next();
            visitor.visit(entry.getKey(), entry.getValue());
        } while (it.hasNext());
        return true;
    }

    @Override
    boolean isEmpty() throws Exception {
        return rows.isEmpty();
    }

    @Override
    void clear() {
        rows.clear();
    }
}
