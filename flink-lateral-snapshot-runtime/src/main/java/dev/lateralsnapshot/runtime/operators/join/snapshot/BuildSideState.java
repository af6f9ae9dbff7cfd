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
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import javax.annotation.Nullable;

/**
 * The build rows of the current join key, in keyed state. One implementation per {@link
 * BuildSideLayout}; the operator sets the key before every call.
 *
 * <p>Rows handed to {@link #add} and {@link #retract} have their row kind reset to {@code INSERT}
 * by the caller, so that equal rows compare equal whatever change brought them.
 */
abstract class BuildSideState {

    /** Receives the build rows of the current key during a probe. */
    interface RowVisitor {
        void visit(RowData buildRow, int multiplicity) throws Exception;
    }

    /**
     * The build rows of one key read once, to join several probe rows of that key in a row while
     * its build rows do not change; see {@link #readRows}.
     */
    interface KeyRows {
        /** Visits the rows read; returns false when the key had no build row. */
        boolean visit(RowVisitor visitor) throws Exception;
    }

    /** The rows of a key that has none, or of a key that can match none. */
    static final KeyRows NO_ROWS = visitor -> false;

    /** The value state of a key's rows, with an index of them when there is one; else null. */
    @Nullable private IndexedValueState<?> index;

    /**
     * @param indexKeys the operator, which knows the current key, when the state backend keeps the
     *     state on the heap: reads of a key's rows then go to an index of the keys, see {@link
     *     IndexedValueState}; null for none
     * @param stampKeys whether the index gives every key a stamp, for the state TTL's clock
     */
    static BuildSideState create(
            BuildSideLayout layout,
            KeyedStateStore store,
            InternalTypeInfo<RowData> buildType,
            @Nullable KeyContext indexKeys,
            boolean stampKeys) {
        switch (layout) {
            case MULTISET:
                return new MultisetBuildSideState(store, buildType, indexKeys, stampKeys);
            case ONE_ROW_PER_KEY:
                return new SingleRowBuildSideState(store, buildType, indexKeys, stampKeys);
            default:
                throw new IllegalArgumentException("Unknown build side layout " + layout);
        }
    }

    /**
     * The value state that holds a key's rows, indexed when the keys to index by are given, with a
     * stamp per key when asked for.
     */
    final <V> ValueState<V> indexed(
            ValueState<V> state, @Nullable KeyContext indexKeys, boolean stampKeys) {
        if (indexKeys == null) {
            return state;
        }
        IndexedValueState<V> indexed = new IndexedValueState<>(state, indexKeys, stampKeys);
        index = indexed;
        return indexed;
    }

    /** The index of the keys' rows, when there is one; else null. */
    @Nullable
    final IndexedValueState<?> index() {
        return index;
    }

    /** Name of the keyed state that holds the rows; frozen, savepoints depend on it. */
    abstract String stateName();

    abstract void add(RowData row) throws Exception;

    /** Removes one occurrence of the row; returns false when there was nothing to remove. */
    abstract boolean retract(RowData row) throws Exception;

    /** Visits every build row of the key; returns false when the key has no build row. */
    abstract boolean visitRows(RowVisitor visitor) throws Exception;

    /**
     * Reads the current key's build rows for {@link KeyRows#visit}, which the caller may call for
     * several probe rows of the key until it changes the key's build rows. On RocksDB this saves a
     * read and a deserialization per probe row after the first. By default each visit reads the
     * rows again, which suits a layout whose read is a lookup on the heap.
     */
    KeyRows readRows() throws Exception {
        return this::visitRows;
    }

    /** Visits the row of a layout with at most one row per key; returns false when it is null. */
    static boolean visitSingleRow(@Nullable RowData row, RowVisitor visitor) throws Exception {
        if (row == null) {
            return false;
        }
        visitor.visit(row, 1);
        return true;
    }

    abstract boolean isEmpty() throws Exception;

    abstract void clear();
}
