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

import dev.lateralsnapshot.runtime.internal.ValueStateCursor;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideLayout;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideState;

import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import javax.annotation.Nullable;

/**
 * The build rows of the current key in keyed state, where Flink sets the key. One implementation
 * per {@link BuildSideLayout}; each keeps a key's rows in one value state, which on a backend that
 * holds objects on the heap is indexed by the keys ({@link IndexedValueState}).
 */
abstract class KeyedBuildSideState extends BuildSideState {

    /** The value state of a key's rows, when it is indexed; else null. */
    @Nullable private IndexedValueState<?> index;

    /** The cursor over the value state of a key's rows, where the backend has one; else null. */
    @Nullable private ValueStateCursor<Object, ?> cursor;

    @Nullable private KeyContext keys;

    /** The version of the build rows that the cursor reads. */
    private long cursorVersion = -1;

    private int readsSinceChange;

    /**
     * @param indexKeys the operator, which knows the current key, when reads of a key's rows go to
     *     an index of the keys; null for none
     * @param stampKeys whether the index gives every key a stamp, for the state TTL's clock
     */
    static KeyedBuildSideState create(
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

    /**
     * Lets reads in key order go through a cursor over the value state of a key's rows ({@link
     * #stateName}).
     */
    final void readInKeyOrderWith(ValueStateCursor<Object, ?> cursor, KeyContext keys) {
        this.cursor = cursor;
        this.keys = keys;
    }

    /**
     * The current key's value of the state that holds a key's rows, read through the cursor where
     * there is one and reads in key order have gone on since the last change.
     */
    @Nullable
    @SuppressWarnings("unchecked")
    final <V> V valueInKeyOrder(ValueState<V> state, long version) throws Exception {
        if (cursor == null) {
            return state.value();
        }
        if (version != cursorVersion) {
            // The cursor sees the state as it was when it opened: it starts over after a change.
            cursor.reset();
            cursorVersion = version;
            readsSinceChange = 0;
        }
        if (readsSinceChange < READS_IN_KEY_ORDER_BEFORE_CURSOR) {
            readsSinceChange++;
            return state.value();
        }
        return ((ValueStateCursor<Object, V>) cursor).value(keys.getCurrentKey());
    }

    @Override
    public void endReadsInKeyOrder() {
        if (cursor != null) {
            cursor.reset();
            cursorVersion = -1;
        }
    }

    /**
     * Lets this layout hold its adds and write them together ({@link #startHoldingAdds}), where the
     * backend allows it; a layout whose adds read the key's rows first holds none.
     */
    void holdAddsIn(KeyedStateBackend<Object> backend) {}

    /** Name of the keyed state that has a value for every key with rows. */
    abstract String stateName();

    /**
     * Fails when the restored state holds this layout's rows in a form that this version does not
     * read, with a message that says what it found. Called after a restore has rebuilt the index.
     */
    abstract void checkRestoredLayout(KeyedStateBackend<Object> backend, KeyContext keys)
            throws Exception;
}
