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

import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideLayout;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideState;
import dev.lateralsnapshot.runtime.operators.join.snapshot.index.BinaryKeyIndex;

import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.apache.flink.util.Preconditions.checkArgument;

/**
 * The build rows of every join key, in one subtask's broadcast state: a heap map from the equality
 * key to the key's rows, so that a probe row costs one hash lookup whatever the state backend. One
 * implementation per {@link BuildSideLayout}; {@link BroadcastKeys} sets the current key.
 *
 * <p>Keys are binary rows, as the planner's key selectors make them and as the state restores them:
 * only equal forms hash alike. A key without rows is removed from the map, so that the map holds
 * exactly the keys that have rows.
 *
 * <p>The broadcast state is what a checkpoint writes; lookups go to a {@link BinaryKeyIndex} of the
 * same keys and the same value objects, which every change updates along with the state and a
 * restore rebuilds from it.
 *
 * @param <V> the rows of one key, in the form of the layout
 */
abstract class BroadcastBuildSideState<V> extends BuildSideState {

    /** The map from the key to its rows, in the form of the layout. */
    private final BroadcastState<RowData, V> rowsByKey;

    private final BinaryKeyIndex<V> index = new BinaryKeyIndex<>();

    private final BuildRowsWarning warning;

    private BinaryRowData currentKey;

    /** Rows held by this subtask, every occurrence counted. */
    private long rowCount;

    /** Indexes and counts the rows a restore brought back, if any. */
    BroadcastBuildSideState(BroadcastState<RowData, V> rowsByKey, BuildRowsWarning warning)
            throws Exception {
        this.rowsByKey = rowsByKey;
        this.warning = warning;
        for (Map.Entry<RowData, V> restored : rowsByKey.entries()) {
            index.put(binary(restored.getKey()), restored.getValue());
            rowCount += countRows(restored.getValue());
        }
        warning.check(rowCount);
    }

    static BroadcastBuildSideState<?> create(
            BuildSideLayout layout,
            OperatorStateStore store,
            InternalTypeInfo<RowData> keyType,
            InternalTypeInfo<RowData> buildType,
            BuildRowsWarning warning)
            throws Exception {
        switch (layout) {
            case MULTISET:
                return new BroadcastMultisetBuildSideState(store, keyType, buildType, warning);
            case ONE_ROW_PER_KEY:
                return new BroadcastSingleRowBuildSideState(store, keyType, buildType, warning);
            default:
                throw new IllegalArgumentException("Unknown build side layout " + layout);
        }
    }

    /** Sets the key of the next calls; a binary row that the state may keep as it is. */
    final void setCurrentKey(RowData key) {
        this.currentKey = binary(key);
    }

    final BinaryRowData currentKey() {
        return currentKey;
    }

    private static BinaryRowData binary(RowData key) {
        checkArgument(key instanceof BinaryRowData, "Build side keys must be binary rows.");
        return (BinaryRowData) key;
    }

    /** The rows of the current key, or null when it has none. */
    @Nullable
    final V rowsOfKey() {
        return index.get(currentKey);
    }

    /** Sets the rows of the current key, in the state and in the index. */
    final void putRowsOfKey(V rows) throws Exception {
        rowsByKey.put(currentKey, rows);
        index.put(currentKey, rows);
    }

    /** Removes the current key and its rows, from the state and from the index. */
    final void removeKey() throws Exception {
        rowsByKey.remove(currentKey);
        index.remove(currentKey);
    }

    final long rowCount() {
        return rowCount;
    }

    final void rowsAdded(long rows) {
        rowCount += rows;
        if (rows > 0) {
            warning.check(rowCount);
        }
    }

    /** The rows that one key's value holds, every occurrence counted. */
    abstract long countRows(V rowsOfKey);

    @Override
    public final boolean isEmpty() {
        return rowsOfKey() == null;
    }

    @Override
    public final void clear() throws Exception {
        V rows = rowsOfKey();
        if (rows != null) {
            rowsAdded(-countRows(rows));
            removeKey();
        }
    }

    /**
     * Reads the key's value once. A change to the key's rows may change that value in place; the
     * join reads again after any change (see {@code BuildSideWriter#version}).
     */
    @Override
    public final KeyRows readRows() {
        V rows = rowsOfKey();
        return rows == null ? NO_ROWS : visitor -> visit(rows, visitor);
    }

    @Override
    public final boolean visitRows(RowVisitor visitor) throws Exception {
        V rows = rowsOfKey();
        return rows != null && visit(rows, visitor);
    }

    /** Visits the rows of a key's value; returns true. */
    abstract boolean visit(V rowsOfKey, RowVisitor visitor) throws Exception;

    /** The keys that have rows, collected first so that the state may change after. */
    final List<RowData> keys() throws Exception {
        List<RowData> keys = new ArrayList<>(index.size());
        for (Map.Entry<RowData, V> entry : rowsByKey.entries()) {
            keys.add(entry.getKey());
        }
        return keys;
    }
}
