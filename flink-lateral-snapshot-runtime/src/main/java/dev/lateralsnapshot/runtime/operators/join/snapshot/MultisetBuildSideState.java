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
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.types.RowKind;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Build rows as a multiset, kept in one of two ways per key.
 *
 * <ul>
 *   <li><b>Inline</b>, up to {@link #MAX_INLINE_ROWS} rows: one value holding the rows, an equal
 *       row once per occurrence (see {@link MultisetRowsSerializer}). A probe row reads the key's
 *       rows in one state read (one {@code get} on RocksDB, where a map would open an iterator and
 *       seek); a key with one row is held by the heap backend as that row, as in the layout with
 *       one row per key. A build change reads and rewrites at most that many rows.
 *   <li><b>Spilled</b>, past that: a map of row to number of occurrences, and in the value a marker
 *       that says so. A build change then touches one map entry, whatever the number of rows under
 *       the key, so a key with many rows (the single key of a join without equality predicate)
 *       never costs more than one entry per change. A spilled key stays spilled until it has no row
 *       left.
 * </ul>
 *
 * <p>Every key with rows has a value, so the keys of {@link #STATE_NAME} are the keys of the build
 * side. Savepoints of the earlier layouts, which kept the inline rows in a list state or every key
 * in the map, are moved over by {@link #moveFromListLayout} and {@link #moveFromMapLayout} when
 * restored.
 */
final class MultisetBuildSideState extends BuildSideState {

    /** The value of every key: its rows, or the marker of a spilled key. */
    static final String STATE_NAME = "build-row-multiset";

    /** Where savepoints of the earlier layout kept a key's rows, or the marker of a spilled key. */
    static final String LIST_STATE_NAME = "build-row-list";

    /** The map of a spilled key, and of every key in savepoints of the earliest layout. */
    static final String SPILLED_STATE_NAME = "build-rows";

    /** A key whose rows would exceed this many spills them into the map. */
    static final int MAX_INLINE_ROWS = 32;

    private final KeyedStateStore store;
    private final InternalTypeInfo<RowData> buildType;
    private final ValueState<Object> rows;
    private final MapState<RowData, Integer> spilled;
    private final RowDataSerializer serializer;

    /** The list of the earlier layout, registered only when a restore moves rows out of it. */
    @Nullable private ListState<RowData> earlierList;

    MultisetBuildSideState(
            KeyedStateStore store,
            InternalTypeInfo<RowData> buildType,
            @Nullable KeyContext indexKeys,
            boolean stampKeys) {
        this.store = store;
        this.buildType = buildType;
        this.serializer = buildType.toRowSerializer();
        this.rows =
                indexed(
                        store.getState(
                                new ValueStateDescriptor<>(
                                        STATE_NAME, new MultisetRowsSerializer(serializer))),
                        indexKeys,
                        stampKeys);
        this.spilled =
                store.getMapState(
                        new MapStateDescriptor<>(SPILLED_STATE_NAME, buildType, Types.INT));
    }

    /**
     * Rows are compared as binary rows: a heap state backend matches map keys with {@code equals},
     * which holds between two binary rows but not between a binary row restored from a snapshot and
     * an equal row of another class. Rows from the network are binary already.
     */
    private RowData binary(RowData row) {
        return row instanceof BinaryRowData ? row : serializer.toBinaryRow(row).copy();
    }

    /** The key's inline rows as an array; empty for a spilled key. */
    private static RowData[] inline(Object value) {
        return value instanceof RowData ? new RowData[] {(RowData) value} : (RowData[]) value;
    }

    /** Keeps the rows, which fit inline, as the key's value; none clears it. */
    private void updateInline(RowData[] inline) throws Exception {
        if (inline.length == 0) {
            rows.clear();
        } else {
            rows.update(inline.length == 1 ? inline[0] : inline);
        }
    }

    private void addToSpilled(RowData row) throws Exception {
        Integer count = spilled.get(row);
        spilled.put(row, count == null ? 1 : count + 1);
    }

    @Override
    String stateName() {
        return STATE_NAME;
    }

    @Override
    void add(RowData row) throws Exception {
        RowData key = binary(row);
        Object value = rows.value();
        if (value == null) {
            rows.update(key);
            return;
        }
        if (MultisetRowsSerializer.isSpilled(value)) {
            addToSpilled(key);
            return;
        }
        RowData[] inline = inline(value);
        if (inline.length < MAX_INLINE_ROWS) {
            RowData[] withRow = Arrays.copyOf(inline, inline.length + 1);
            withRow[inline.length] = key;
            rows.update(withRow);
            return;
        }
        for (RowData inlineRow : inline) {
            addToSpilled(inlineRow);
        }
        addToSpilled(key);
        rows.update(MultisetRowsSerializer.SPILLED);
    }

    @Override
    boolean retract(RowData row) throws Exception {
        RowData key = binary(row);
        Object value = rows.value();
        if (value == null) {
            return false;
        }
        if (MultisetRowsSerializer.isSpilled(value)) {
            Integer count = spilled.get(key);
            if (count == null) {
                return false;
            }
            if (count > 1) {
                spilled.put(key, count - 1);
            } else {
                spilled.remove(key);
                if (spilled.isEmpty()) {
                    rows.clear();
                }
            }
            return true;
        }
        RowData[] inline = inline(value);
        int at = Arrays.asList(inline).indexOf(key);
        if (at < 0) {
            return false;
        }
        RowData[] rest = new RowData[inline.length - 1];
        System.arraycopy(inline, 0, rest, 0, at);
        System.arraycopy(inline, at + 1, rest, at, rest.length - at);
        updateInline(rest);
        return true;
    }

    @Override
    boolean visitRows(RowVisitor visitor) throws Exception {
        return visitValue(rows.value(), visitor);
    }

    /**
     * A spilled key's rows are read from the map at each visit: they are too many to hold for the
     * probe rows of the key.
     */
    @Override
    KeyRows readRows() throws Exception {
        Object value = rows.value();
        return value == null ? NO_ROWS : visitor -> visitValue(value, visitor);
    }

    private boolean visitValue(@Nullable Object value, RowVisitor visitor) throws Exception {
        if (value == null) {
            return false;
        }
        if (value instanceof RowData) {
            visitor.visit((RowData) value, 1);
            return true;
        }
        RowData[] inline = (RowData[]) value;
        if (inline.length == 0) {
            Iterator<Map.Entry<RowData, Integer>> it = spilled.iterator();
            while (it.hasNext()) {
                Map.Entry<RowData, Integer> entry = it.next();
                visitor.visit(entry.getKey(), entry.getValue());
            }
            return true;
        }
        for (RowData inlineRow : inline) {
            visitor.visit(inlineRow, 1);
        }
        return true;
    }

    @Override
    boolean isEmpty() throws Exception {
        return rows.value() == null;
    }

    @Override
    void clear() {
        rows.clear();
        spilled.clear();
    }

    /**
     * Moves the current key's rows from the list of the earlier layout: up to {@link
     * #MAX_INLINE_ROWS} rows, or the marker of a spilled key, whose map stays as it is.
     */
    void moveFromListLayout() throws Exception {
        if (earlierList == null) {
            earlierList = store.getListState(new ListStateDescriptor<>(LIST_STATE_NAME, buildType));
        }
        Iterable<RowData> listed = earlierList.get();
        List<RowData> inline = new ArrayList<>();
        if (listed != null) {
            listed.forEach(inline::add);
        }
        earlierList.clear();
        if (inline.size() == 1 && inline.get(0).getRowKind() != RowKind.INSERT) {
            // Stored rows are always INSERT: this is the marker of a spilled key.
            rows.update(MultisetRowsSerializer.SPILLED);
            return;
        }
        updateInline(inline.toArray(new RowData[0]));
    }

    /**
     * Moves the current key's rows from the map, where savepoints of the earliest layout kept every
     * key, into this layout: inline when they fit, else the map stays and the marker is added.
     */
    void moveFromMapLayout() throws Exception {
        List<RowData> inline = new ArrayList<>();
        for (Map.Entry<RowData, Integer> entry : spilled.entries()) {
            for (int i = 0; i < entry.getValue() && inline.size() <= MAX_INLINE_ROWS; i++) {
                inline.add(entry.getKey());
            }
        }
        if (inline.isEmpty()) {
            return;
        }
        if (inline.size() <= MAX_INLINE_ROWS) {
            spilled.clear();
            updateInline(inline.toArray(new RowData[0]));
        } else {
            rows.update(MultisetRowsSerializer.SPILLED);
        }
    }
}
