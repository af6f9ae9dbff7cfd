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

import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.SerializedCompositeKeyBuilder;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import javax.annotation.Nullable;

import java.util.Arrays;

/**
 * A {@link ValueStateCursor} over a value state in its {@link StoreColumn}, as Flink's RocksDB and
 * ForSt backends keep it. A key asked after the one before moves the iterator forward a few
 * entries, or seeks when the key is further ahead; a key before the one before seeks back.
 *
 * <p>What the cursor relies on, which no interface of Flink states (pinned by {@code
 * ColumnFamilyValueStateCursorTest} on each backend): a value state's key in the store is the key
 * group, the key and the namespace as {@link SerializedCompositeKeyBuilder} writes them, and its
 * value is the serialized value alone; the store orders keys by their unsigned bytes.
 */
final class ColumnFamilyValueStateCursor<K, V> implements ValueStateCursor<K, V> {

    /** Entries the iterator steps over before it seeks instead. */
    static final int MAX_STEPS = 16;

    private final StoreColumn column;
    private final int numberOfKeyGroups;
    private final SerializedCompositeKeyBuilder<K> storeKeys;
    private final TypeSerializer<V> valueSerializer;
    private final DataInputDeserializer input = new DataInputDeserializer();

    /** Whether an iterator is open. */
    private boolean open;

    /** The store key asked for last; the iterator is at it or at the first entry after it. */
    @Nullable private byte[] lastAsked;

    @SuppressWarnings("unchecked")
    ColumnFamilyValueStateCursor(StoreColumn column, String stateName) {
        this.valueSerializer =
                (TypeSerializer<V>)
                        column.stateSerializerWithoutNamespace(
                                stateName, StateDescriptor.Type.VALUE);
        this.column = column;
        this.numberOfKeyGroups = column.numberOfKeyGroups();
        this.storeKeys = column.storeKeyBuilder();
    }

    @Override
    @Nullable
    public V value(K key) throws Exception {
        storeKeys.setKeyAndKeyGroup(
                key, KeyGroupRangeAssignment.assignToKeyGroup(key, numberOfKeyGroups));
        byte[] target =
                storeKeys.buildCompositeKeyNamespace(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE);
        byte[] at = moveTo(target);
        if (at == null || !Arrays.equals(at, target)) {
            return null;
        }
        input.setBuffer(column.entryValue());
        return valueSerializer.deserialize(input);
    }

    /**
     * Puts the iterator at the target or at the first entry after it; returns that entry's store
     * key, or null when the column has none from the target on.
     */
    @Nullable
    private byte[] moveTo(byte[] target) {
        boolean forward =
                open && lastAsked != null && Arrays.compareUnsigned(target, lastAsked) >= 0;
        lastAsked = target;
        if (!open) {
            column.openIterator();
            open = true;
        }
        if (!forward) {
            return seek(target);
        }
        // The iterator is at or after the key asked before, and so no further than the target
        // from any entry before it.
        for (int steps = 0; column.valid(); steps++) {
            byte[] at = column.entryKey();
            if (Arrays.compareUnsigned(at, target) >= 0) {
                return at;
            }
            if (steps == MAX_STEPS) {
                return seek(target);
            }
            column.nextEntry();
        }
        return null;
    }

    /** Seeks the target; returns the store key of the entry there, or null when there is none. */
    @Nullable
    private byte[] seek(byte[] target) {
        column.seek(target);
        return column.valid() ? column.entryKey() : null;
    }

    @Override
    public void reset() {
        if (open) {
            column.closeIterator();
            open = false;
        }
        lastAsked = null;
    }

    @Override
    public void close() {
        reset();
    }
}
