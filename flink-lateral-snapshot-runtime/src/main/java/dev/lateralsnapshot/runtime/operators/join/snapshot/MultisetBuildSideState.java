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
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.types.RowKind;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Build rows as a multiset, kept in one of two ways per key.
 *
 * <ul>
 *   <li><b>Inline</b>, up to {@link #MAX_INLINE_ROWS} rows: a list of the rows, an equal row once
 *       per occurrence. A probe row reads the key's rows in one state read (one {@code get} on
 *       RocksDB, where a map would open an iterator and seek); a build change reads and rewrites at
 *       most that many rows.
 *   <li><b>Spilled</b>, past that: a map of row to number of occurrences, and in the list one
 *       marker row that says so. A build change then touches one map entry, whatever the number of
 *       rows under the key, so a key with many rows (the single key of a join without equality
 *       predicate) never costs more than one entry per change. A spilled key stays spilled until it
 *       has no row left.
 * </ul>
 *
 * <p>Every key with rows has a list, so the keys of {@link #STATE_NAME} are the keys of the build
 * side. Savepoints of the earlier layout, which kept every key in the map, are moved over by {@link
 * #moveFromMapLayout} when restored.
 */
final class MultisetBuildSideState extends BuildSideState {

    /** The list of every key: its rows, or the marker of a spilled key. */
    static final String STATE_NAME = "build-row-list";

    /** The map of a spilled key, and of every key in savepoints of the earlier layout. */
    static final String SPILLED_STATE_NAME = "build-rows";

    /** A key whose rows would exceed this many spills them into the map. */
    static final int MAX_INLINE_ROWS = 32;

    private final ListState<RowData> list;
    private final MapState<RowData, Integer> spilled;
    private final RowDataSerializer serializer;

    /**
     * Stands in the list of a spilled key. Stored rows are always {@code INSERT} (see {@link
     * BuildSideState}), so no build row can be taken for it.
     */
    private final RowData spilledMarker;

    MultisetBuildSideState(KeyedStateStore store, InternalTypeInfo<RowData> buildType) {
        this.list = store.getListState(new ListStateDescriptor<>(STATE_NAME, buildType));
        this.spilled =
                store.getMapState(
                        new MapStateDescriptor<>(SPILLED_STATE_NAME, buildType, Types.INT));
        this.serializer = buildType.toRowSerializer();
        GenericRowData marker = new GenericRowData(buildType.toRowSize());
        marker.setRowKind(RowKind.DELETE);
        this.spilledMarker = serializer.toBinaryRow(marker).copy();
    }

    /**
     * Rows are compared as binary rows: a heap state backend matches map keys with {@code equals},
     * which holds between two binary rows but not between a binary row restored from a snapshot and
     * an equal row of another class. Rows from the network are binary already.
     */
    private RowData binary(RowData row) {
        return row instanceof BinaryRowData ? row : serializer.toBinaryRow(row).copy();
    }

    private static boolean isSpilledMarker(List<RowData> rows) {
        return rows.size() == 1 && rows.get(0).getRowKind() != RowKind.INSERT;
    }

    /** The key's list; empty when it has no rows. */
    private List<RowData> rows() throws Exception {
        Iterable<RowData> rows = list.get();
        if (rows instanceof List) {
            return (List<RowData>) rows;
        }
        List<RowData> copy = new ArrayList<>();
        if (rows != null) {
            rows.forEach(copy::add);
        }
        return copy;
    }

    @Override
    String stateName() {
        return STATE_NAME;
    }

    @Override
    void add(RowData row) throws Exception {
        RowData key = binary(row);
        List<RowData> rows = rows();
        if (isSpilledMarker(rows)) {
            Integer count = spilled.get(key);
            spilled.put(key, count == null ? 1 : count + 1);
        } else if (rows.size() < MAX_INLINE_ROWS) {
            // Rewritten rather than appended: on RocksDB an append is a merge operand, and a read
            // of a key that has only merge operands cannot stop at the newest entry it finds but
            // looks for a base value through every level, on every probe row until a compaction.
            List<RowData> withRow = new ArrayList<>(rows.size() + 1);
            withRow.addAll(rows);
            withRow.add(key);
            list.update(withRow);
        } else {
            for (RowData inline : rows) {
                Integer count = spilled.get(inline);
                spilled.put(inline, count == null ? 1 : count + 1);
            }
            Integer count = spilled.get(key);
            spilled.put(key, count == null ? 1 : count + 1);
            list.update(List.of(spilledMarker));
        }
    }

    @Override
    boolean retract(RowData row) throws Exception {
        RowData key = binary(row);
        List<RowData> rows = rows();
        if (isSpilledMarker(rows)) {
            Integer count = spilled.get(key);
            if (count == null) {
                return false;
            }
            if (count > 1) {
                spilled.put(key, count - 1);
            } else {
                spilled.remove(key);
                if (spilled.isEmpty()) {
                    list.clear();
                }
            }
            return true;
        }
        int at = rows.indexOf(key);
        if (at < 0) {
            return false;
        }
        if (rows.size() == 1) {
            list.clear();
        } else {
            List<RowData> rest = new ArrayList<>(rows);
            rest.remove(at);
            list.update(rest);
        }
        return true;
    }

    @Override
    boolean visitRows(RowVisitor visitor) throws Exception {
        List<RowData> rows = rows();
        if (rows.isEmpty()) {
            return false;
        }
        if (isSpilledMarker(rows)) {
            Iterator<Map.Entry<RowData, Integer>> it = spilled.iterator();
            while (it.hasNext()) {
                Map.Entry<RowData, Integer> entry = it.next();
                visitor.visit(entry.getKey(), entry.getValue());
            }
            return true;
        }
        for (int i = 0; i < rows.size(); i++) {
            visitor.visit(rows.get(i), 1);
        }
        return true;
    }

    @Override
    boolean isEmpty() throws Exception {
        return rows().isEmpty();
    }

    @Override
    void clear() {
        list.clear();
        spilled.clear();
    }

    /**
     * Moves the current key's rows from the map, where savepoints of the earlier layout kept every
     * key, into this layout: inline when they fit, else the map stays and the marker is added.
     */
    void moveFromMapLayout() throws Exception {
        List<RowData> rows = new ArrayList<>();
        for (Map.Entry<RowData, Integer> entry : spilled.entries()) {
            for (int i = 0; i < entry.getValue() && rows.size() <= MAX_INLINE_ROWS; i++) {
                rows.add(entry.getKey());
            }
        }
        if (rows.isEmpty()) {
            return;
        }
        if (rows.size() <= MAX_INLINE_ROWS) {
            spilled.clear();
            list.update(rows);
        } else {
            list.update(List.of(spilledMarker));
        }
    }
}
