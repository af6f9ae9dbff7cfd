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

import dev.lateralsnapshot.runtime.operators.join.snapshot.index.BinaryKeyIndex;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.table.data.binary.BinaryRowData;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * A value state of the heap state backend whose values are also held in a {@link BinaryKeyIndex} of
 * the keys, which reads go to: the build rows of a key, which every probe row reads.
 *
 * <p>The heap backend keeps a value as the object it was given, in a hash map whose lookup goes
 * through the entry, the stored key row, its segments and their bytes, and which copies the value
 * at the first read after every snapshot. The index holds the same value objects, not copies, under
 * the keys' bytes, so a read costs one lookup and copies nothing. The values are never changed in
 * place: every change is an {@link #update} with a new value, which goes to the state and to the
 * index, so a snapshot that still writes an earlier value reads what it expects.
 *
 * <p>The state stays what a checkpoint writes; the index is rebuilt from it at a restore, key by
 * key ({@link #indexCurrentKey}). Keys are binary rows, as the planner's key selectors make them
 * and as the state restores them.
 *
 * @param <V> the value of a key
 */
final class IndexedValueState<V> implements ValueState<V> {

    private final ValueState<V> state;
    private final KeyContext keys;
    private final BinaryKeyIndex<V> index;

    /**
     * @param state the value state of the heap backend
     * @param keys the operator, which knows the current key
     * @param stamped whether every key with a value has a stamp; see {@link #stamp}
     */
    IndexedValueState(ValueState<V> state, KeyContext keys, boolean stamped) {
        this.state = state;
        this.keys = keys;
        this.index = new BinaryKeyIndex<>(stamped);
    }

    @Override
    @Nullable
    public V value() {
        return index.get(currentKey());
    }

    @Override
    public void update(@Nullable V value) throws IOException {
        state.update(value);
        if (value == null) {
            index.remove(currentKey());
        } else {
            index.put(currentKey(), value);
        }
    }

    @Override
    public void clear() {
        state.clear();
        index.remove(currentKey());
    }

    /**
     * The stamp of the current key, which the index keeps while the key has a value: {@link
     * BinaryKeyIndex#NO_STAMP} for a key that got its value since it last had none, and for a key
     * without value. It is not state: a restore starts every key without one.
     */
    long stamp() {
        return index.stamp(currentKey());
    }

    /** Sets the stamp of the current key, when it has a value. */
    void setStamp(long stamp) {
        index.setStamp(currentKey(), stamp);
    }

    /** Indexes the current key's value as the state holds it, for a key a restore brought back. */
    void indexCurrentKey() throws IOException {
        V value = state.value();
        if (value != null) {
            index.put(currentKey(), value);
        }
    }

    private BinaryRowData currentKey() {
        return (BinaryRowData) keys.getCurrentKey();
    }
}
