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

package dev.lateralsnapshot.runtime.internal;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.SerializedCompositeKeyBuilder;
import org.apache.flink.util.Preconditions;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Puts into a state's {@link StoreColumn}, held as bytes and written out together in the store's
 * order of keys: the store's write buffer is a skip list, whose insert of a key next to the one
 * inserted before finds its place in a few steps, where a key at random searches the whole list, a
 * cache miss per level. Puts of one store key are written in the order they were made, so that the
 * last one wins.
 *
 * <p>What the puts rely on, which no interface of Flink states (pinned by {@code
 * ColumnFamilyValueStateWritesTest} and {@code ColumnFamilyMapStateWritesTest} on each backend): a
 * state's key in the store is the key group, the key and the namespace as {@link
 * SerializedCompositeKeyBuilder} writes them, and for a map state the serialized map key after
 * them; a value state's value is the serialized value, a map state's a flag that is true for a null
 * value followed by the serialized value.
 */
abstract class SortedColumnWrites {

    /** Puts held at most before they are written out. */
    static final int MAX_ENTRIES = 32_768;

    /** Bytes of keys and values held at most before they are written out. */
    static final long MAX_BYTES = 8L << 20;

    private final StoreColumn column;

    /** The store keys of the puts held, and at the same index their values. */
    private final List<byte[]> heldKeys = new ArrayList<>();

    private final List<byte[]> heldValues = new ArrayList<>();
    private long bytes;

    /** Writes the store's keys of the current key, in the namespace of the state. */
    final SerializedCompositeKeyBuilder<Object> storeKeys;

    /** Writes the store's values. */
    final DataOutputSerializer values = new DataOutputSerializer(128);

    SortedColumnWrites(StoreColumn column) {
        this.column = column;
        this.storeKeys = column.storeKeyBuilder();
    }

    /** Sets the backend's current key, with its key group, as the key of the next store key. */
    final void atCurrentKey() {
        storeKeys.setKeyAndKeyGroup(column.currentKey(), column.currentKeyGroup());
    }

    /** Holds the put of the value that {@link #values} holds under the store key. */
    final void add(byte[] storeKey) throws Exception {
        byte[] value = values.getCopyOfBuffer();
        values.clear();
        heldKeys.add(storeKey);
        heldValues.add(value);
        bytes += storeKey.length + value.length;
        if (heldKeys.size() >= MAX_ENTRIES || bytes >= MAX_BYTES) {
            write();
        }
    }

    /** Writes the puts held out in the store's order of keys; reads of the state then see them. */
    public final void write() throws Exception {
        if (heldKeys.isEmpty()) {
            return;
        }
        for (int index : StoreKeyOrder.sort(heldKeys)) {
            column.putEntry(heldKeys.get(index), heldValues.get(index));
        }
        column.closeBatch();
        discard();
    }

    /** Drops the puts held, which the state never sees. */
    public final void discard() {
        heldKeys.clear();
        heldValues.clear();
        bytes = 0;
    }

    /** Serializes a value into {@link #values}. */
    final <T> void serializeValue(TypeSerializer<T> serializer, T value) throws IOException {
        Preconditions.checkNotNull(value, "A held put takes no null value.");
        serializer.serialize(value, values);
    }
}
