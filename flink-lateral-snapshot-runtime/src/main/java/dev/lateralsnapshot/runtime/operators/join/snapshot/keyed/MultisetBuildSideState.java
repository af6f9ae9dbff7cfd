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

import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateNames;

import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import javax.annotation.Nullable;

import java.util.Iterator;
import java.util.Map;

/**
 * Build rows as a multiset, kept in one of two ways per key.
 *
 * <ul>
 *   <li><b>In place</b>, up to {@link MultisetRows#MAX_INLINE_ROWS} rows: one value holding the
 *       rows ({@link MultisetRows}). A probe row reads the key's rows in one state read (one {@code
 *       get} on RocksDB, where a map would open an iterator and seek). A build change reads and
 *       rewrites at most that many rows.
 *   <li><b>Spilled</b>, past that: a map of row to number of occurrences, and in the value the mark
 *       that says so. A build change then touches one map entry, whatever the number of rows under
 *       the key, so a key with many rows (the single key of a join without equality predicate)
 *       never costs more than one entry per change. A spilled key stays spilled until it has no row
 *       left.
 * </ul>
 *
 * <p>Every key with rows has a value, so the keys of its state are the keys of the build side.
 */
final class MultisetBuildSideState extends KeyedBuildSideState {

    private final ValueState<MultisetRows> rows;
    private final MapState<RowData, Integer> spilled;
    private final RowDataSerializer serializer;

    /** The row that a probe reads the only row of a key through; see {@link MultisetRows}. */
    private final BinaryRowData reusedRow;

    MultisetBuildSideState(
            KeyedStateStore store,
            InternalTypeInfo<RowData> buildType,
            @Nullable KeyContext indexKeys,
            boolean stampKeys) {
        this.serializer = buildType.toRowSerializer();
        this.reusedRow = new BinaryRowData(buildType.toRowSize());
        this.rows =
                indexed(
                        store.getState(
                                new ValueStateDescriptor<>(
                                        LateralSnapshotJoinStateNames.BUILD_ROW_MULTISET,
                                        new MultisetRowsSerializer(serializer))),
                        indexKeys,
                        stampKeys);
        this.spilled =
                store.getMapState(
                        new MapStateDescriptor<>(
                                LateralSnapshotJoinStateNames.BUILD_ROWS_SPILLED,
                                buildType,
                                Types.INT));
    }

    /**
     * Rows are compared as binary rows: a heap state backend matches map keys with {@code equals},
     * which holds between two binary rows but not between a binary row restored from a snapshot and
     * an equal row of another class. Rows from the network are binary already.
     */
    private BinaryRowData binary(RowData row) {
        return row instanceof BinaryRowData
                ? (BinaryRowData) row
                : serializer.toBinaryRow(row).copy();
    }

    private void addToSpilled(RowData row) throws Exception {
        Integer count = spilled.get(row);
        spilled.put(row, count == null ? 1 : count + 1);
    }

    @Override
    String stateName() {
        return LateralSnapshotJoinStateNames.BUILD_ROW_MULTISET;
    }

    /**
     * Every key in the spill map must have the spilled mark as its value; where one has not, its
     * rows would be invisible to probe rows.
     */
    @Override
    void checkRestoredLayout(KeyedStateBackend<Object> backend, KeyContext keys) throws Exception {
        int unmarked = 0;
        for (Object key :
                KeyedStateKeys.keysOf(backend, LateralSnapshotJoinStateNames.BUILD_ROWS_SPILLED)) {
            keys.setCurrentKey(key);
            MultisetRows value = rows.value();
            if (value == null || !value.isSpilled()) {
                unmarked++;
            }
        }
        if (unmarked > 0) {
            throw new IllegalStateException(
                    "The LATERAL SNAPSHOT join cannot restore its build side: the savepoint keeps"
                            + " build rows in state '"
                            + LateralSnapshotJoinStateNames.BUILD_ROWS_SPILLED
                            + "' for "
                            + unmarked
                            + (unmarked == 1 ? " key" : " keys")
                            + " without the mark of a spilled key in state '"
                            + LateralSnapshotJoinStateNames.BUILD_ROW_MULTISET
                            + "'. This layout was never released; restore from a savepoint taken"
                            + " by a released version of this library, or start the job without"
                            + " one.");
        }
    }

    @Override
    public void add(RowData row) throws Exception {
        BinaryRowData binaryRow = binary(row);
        MultisetRows value = rows.value();
        if (value == null) {
            rows.update(MultisetRows.copyOf(binaryRow));
        } else if (value.hasRoom()) {
            rows.update(value.with(binaryRow));
        } else if (value.isSpilled()) {
            addToSpilled(binaryRow);
        } else {
            for (int i = 0; i < value.size(); i++) {
                addToSpilled(value.row(i));
            }
            addToSpilled(binaryRow);
            rows.update(MultisetRows.SPILLED);
        }
    }

    @Override
    public boolean retract(RowData row) throws Exception {
        BinaryRowData binaryRow = binary(row);
        MultisetRows value = rows.value();
        if (value == null) {
            return false;
        }
        if (value.isSpilled()) {
            Integer count = spilled.get(binaryRow);
            if (count == null) {
                return false;
            }
            if (count > 1) {
                spilled.put(binaryRow, count - 1);
            } else {
                spilled.remove(binaryRow);
                if (spilled.isEmpty()) {
                    rows.clear();
                }
            }
            return true;
        }
        int position = value.indexOf(binaryRow);
        if (position < 0) {
            return false;
        }
        MultisetRows rest = value.without(position);
        if (rest == null) {
            rows.clear();
        } else {
            rows.update(rest);
        }
        return true;
    }

    @Override
    public boolean visitRows(RowVisitor visitor) throws Exception {
        return visit(rows.value(), visitor);
    }

    /**
     * A spilled key's rows are read from the map at each visit: they are too many to hold for the
     * probe rows of the key.
     */
    @Override
    public KeyRows readRows() throws Exception {
        return rowsOf(rows.value());
    }

    @Override
    public KeyRows readRowsInKeyOrder(long version) throws Exception {
        return rowsOf(valueInKeyOrder(rows, version));
    }

    private KeyRows rowsOf(@Nullable MultisetRows value) {
        return value == null ? NO_ROWS : visitor -> visit(value, visitor);
    }

    private boolean visit(@Nullable MultisetRows value, RowVisitor visitor) throws Exception {
        if (value == null) {
            return false;
        }
        if (value.isSpilled()) {
            Iterator<Map.Entry<RowData, Integer>> it = spilled.iterator();
            while (it.hasNext()) {
                Map.Entry<RowData, Integer> entry = it.next();
                visitor.visit(entry.getKey(), entry.getValue());
            }
        } else {
            value.visit(visitor, reusedRow);
        }
        return true;
    }

    @Override
    public boolean isEmpty() throws Exception {
        return rows.value() == null;
    }

    @Override
    public void clear() {
        rows.clear();
        spilled.clear();
    }
}
