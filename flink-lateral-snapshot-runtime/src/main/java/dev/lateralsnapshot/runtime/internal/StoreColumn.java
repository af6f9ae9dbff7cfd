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
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.RegisteredStateMetaInfoBase;
import org.apache.flink.runtime.state.SerializedCompositeKeyBuilder;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import java.lang.reflect.Field;
import java.util.Locale;
import java.util.Optional;

/**
 * The column family that a state of a keyed state backend lives in, where the backend keeps every
 * state in a RocksDB-like store of sorted bytes, one column family per state: one iterator at a
 * time over it, a write batch of puts and removals, and removals of ranges. An implementation holds
 * the store's own classes, which differ by package between Flink's RocksDB and ForSt backends.
 */
interface StoreColumn {

    /** Puts and removals per write batch. */
    int ENTRIES_PER_BATCH = 1_000;

    /**
     * The column family of the state of this name, registered with the backend before; empty where
     * the backend keeps its states otherwise (the heap backend).
     */
    static Optional<StoreColumn> open(KeyedStateBackend<?> backend, String stateName) {
        // Only the backend itself: a wrapper such as the changelog backend records every change,
        // which removals made past it would escape. By name: a job without one of these backends
        // on its class path must not load its classes.
        switch (backend.getClass().getName()) {
            case RocksDbStoreColumn.BACKEND_CLASS:
                return Optional.of(RocksDbStoreColumn.open(backend, stateName));
            case ForStStoreColumn.BACKEND_CLASS:
                return Optional.of(ForStStoreColumn.open(backend, stateName));
            default:
                return Optional.empty();
        }
    }

    /** Reads a field that a backend class declares, for the hooks that have no accessor. */
    static Object readField(Class<?> declaring, Object backend, String fieldName) {
        try {
            Field field = declaring.getDeclaredField(fieldName);
            field.setAccessible(true);
            return field.get(backend);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "Flink's "
                            + declaring.getSimpleName()
                            + " has no readable field "
                            + fieldName
                            + ", which the LATERAL SNAPSHOT join reads to go through its state in"
                            + " the order the backend keeps it. This Flink version is not"
                            + " supported.",
                    e);
        }
    }

    /** The bytes of the key group in front of every key in the store. */
    int keyGroupPrefixBytes();

    /** The number of key groups, the job's maximum parallelism. */
    int numberOfKeyGroups();

    /** The serializer of the backend's keys. */
    TypeSerializer<?> keySerializer();

    /** The backend's current key. */
    Object currentKey();

    /** The key group of the backend's current key, as the backend computed it when it was set. */
    int currentKeyGroup();

    /** What the backend registered of the state: its kind and serializers. */
    RegisteredStateMetaInfoBase metaInfo();

    /**
     * The serializer of the state, which must be of the given kind and in the void namespace, the
     * one the keyed state store gives every state it makes; fails for another state.
     */
    default TypeSerializer<?> stateSerializerWithoutNamespace(
            String stateName, StateDescriptor.Type type) {
        RegisteredStateMetaInfoBase metaInfo = metaInfo();
        if (!(metaInfo instanceof RegisteredKeyValueStateBackendMetaInfo<?, ?> keyValue)
                || keyValue.getStateType() != type
                || !(keyValue.getNamespaceSerializer() instanceof VoidNamespaceSerializer)) {
            throw new IllegalArgumentException(
                    "The state "
                            + stateName
                            + " is not a "
                            + type.name().toLowerCase(Locale.ROOT)
                            + " state without namespace.");
        }
        return keyValue.getStateSerializer();
    }

    /** A builder of the store's keys of the states in the void namespace, for the backend's key. */
    @SuppressWarnings("unchecked")
    default <K> SerializedCompositeKeyBuilder<K> storeKeyBuilder() {
        return new SerializedCompositeKeyBuilder<>(
                (TypeSerializer<K>) keySerializer(), keyGroupPrefixBytes(), 32);
    }

    /** Opens an iterator over the column family; the store's read options apply. */
    void openIterator();

    void seekToFirst();

    void seek(byte[] target);

    void nextEntry();

    /** Whether the iterator is at an entry; fails with the store's status if it stopped on one. */
    boolean valid();

    byte[] entryKey();

    byte[] entryValue();

    void closeIterator();

    /** Adds the put of an entry to the write batch, which writes itself out when full. */
    void putEntry(byte[] storeKey, byte[] value) throws Exception;

    /** Adds the removal of an entry to the write batch, which writes itself out when full. */
    void removeEntry(byte[] storeKey) throws Exception;

    /**
     * Removes every entry from {@code from}, inclusive, to {@code to}, exclusive, in the store's
     * byte order, with one range removal instead of one per entry; written out at once.
     */
    void removeRange(byte[] from, byte[] to) throws Exception;

    /** Writes out what the batch holds. */
    void writeBatch() throws Exception;

    /** Writes out what the batch holds and frees it. */
    void closeBatch() throws Exception;
}
