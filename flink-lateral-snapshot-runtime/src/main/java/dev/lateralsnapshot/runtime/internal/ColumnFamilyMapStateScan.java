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
import org.apache.flink.api.common.typeutils.base.MapSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.RegisteredStateMetaInfoBase;

import javax.annotation.Nullable;

import java.io.IOException;
import java.lang.reflect.Field;
import java.util.Arrays;

/**
 * A scan of a map state in a column family of a RocksDB-like store, as Flink's RocksDB and ForSt
 * backends keep it: one iterator over the column family, where the map state itself opens one and
 * seeks for every key. The subclasses hold the store's own classes, which differ by package.
 *
 * <p>What the scan relies on, which no interface of Flink states (pinned by the subclasses' guard
 * tests):
 *
 * <ul>
 *   <li>a map state's key in the store is the key group, the key and the namespace as {@link
 *       CompositeKeySerializationUtils} writes them, followed by the serialized map key, so that a
 *       key's entries follow one another in the order of their map keys;
 *   <li>a map state's value in the store is a flag that is true for a null value, followed by the
 *       serialized value.
 * </ul>
 */
abstract class ColumnFamilyMapStateScan<K, V> implements MapStateScan<K, V> {

    /** Removals per write batch. */
    static final int REMOVALS_PER_BATCH = 1_000;

    private final int keyGroupPrefixBytes;
    private final TypeSerializer<K> keySerializer;
    private final TypeSerializer<?> namespaceSerializer;
    private final boolean ambiguousKeyPossible;
    private final TypeSerializer<V> valueSerializer;
    private final DataInputDeserializer input = new DataInputDeserializer();

    /** Whether an iterator is open: none before the first entry and after a refresh. */
    private boolean iterating;

    /** The store's key of the current entry; null before the first. */
    @Nullable private byte[] entry;

    /** The key group, key and namespace of the current entry. */
    @Nullable private byte[] entryPrefix;

    private K key;
    private V value;
    private boolean sameKeyAsPrevious;
    private boolean ended;

    /** Whether removals may wait in the write batch. */
    private boolean removed;

    @SuppressWarnings("unchecked")
    ColumnFamilyMapStateScan(
            int keyGroupPrefixBytes,
            TypeSerializer<K> keySerializer,
            RegisteredStateMetaInfoBase metaInfo,
            String stateName) {
        if (!(metaInfo instanceof RegisteredKeyValueStateBackendMetaInfo)
                || !(((RegisteredKeyValueStateBackendMetaInfo<?, ?>) metaInfo).getStateSerializer()
                        instanceof MapSerializer)) {
            throw new IllegalArgumentException("The state " + stateName + " is not a map state.");
        }
        RegisteredKeyValueStateBackendMetaInfo<?, ?> keyValue =
                (RegisteredKeyValueStateBackendMetaInfo<?, ?>) metaInfo;
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
        this.keySerializer = keySerializer;
        this.namespaceSerializer = keyValue.getNamespaceSerializer();
        this.ambiguousKeyPossible =
                CompositeKeySerializationUtils.isAmbiguousKeyPossible(
                        keySerializer, namespaceSerializer);
        this.valueSerializer =
                ((MapSerializer<?, V>) keyValue.getStateSerializer()).getValueSerializer();
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
                            + ", which the LATERAL SNAPSHOT join reads to drain its buffered probe"
                            + " rows in one pass. This Flink version is not supported.",
                    e);
        }
    }

    /** Opens an iterator over the column family; the store's read options apply. */
    abstract void openIterator();

    abstract void seekToFirst();

    abstract void seek(byte[] target);

    abstract void nextEntry();

    /** Whether the iterator is at an entry; fails with the store's status if it stopped on one. */
    abstract boolean valid();

    abstract byte[] entryKey();

    abstract byte[] entryValue();

    abstract void closeIterator();

    /** Adds the removal of an entry to the write batch, which writes itself out when full. */
    abstract void removeEntry(byte[] storeKey) throws Exception;

    abstract void writeRemovals() throws Exception;

    /** Writes out what the batch holds and frees it. */
    abstract void closeRemovals() throws Exception;

    @Override
    public final boolean next() throws IOException {
        if (ended) {
            return false;
        }
        if (!iterating) {
            openIterator();
            iterating = true;
            if (entry == null) {
                seekToFirst();
            } else {
                seek(entry);
                if (valid() && Arrays.equals(entryKey(), entry)) {
                    nextEntry();
                }
            }
        } else {
            nextEntry();
        }
        if (!valid()) {
            ended = true;
            return false;
        }
        byte[] next = entryKey();
        sameKeyAsPrevious = entryPrefix != null && startsWith(next, entryPrefix);
        if (!sameKeyAsPrevious) {
            // The same leading bytes read as the same key and namespace: only a new key is read.
            input.setBuffer(next);
            input.skipBytesToRead(keyGroupPrefixBytes);
            key =
                    CompositeKeySerializationUtils.readKey(
                            keySerializer, input, ambiguousKeyPossible);
            CompositeKeySerializationUtils.readNamespace(
                    namespaceSerializer, input, ambiguousKeyPossible);
            entryPrefix = Arrays.copyOf(next, input.getPosition());
        }
        entry = next;
        input.setBuffer(entryValue());
        if (input.readBoolean()) {
            throw new IllegalStateException(
                    "A map state scanned in one pass holds a null value; it takes none.");
        }
        value = valueSerializer.deserialize(input);
        return true;
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        return bytes.length >= prefix.length
                && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    @Override
    public final K key() {
        return key;
    }

    @Override
    public final boolean sameKeyAsPrevious() {
        return sameKeyAsPrevious;
    }

    @Override
    public final V value() {
        return value;
    }

    @Override
    public final void removeCurrent() throws Exception {
        if (entry == null) {
            throw new IllegalStateException("The scan is at no entry.");
        }
        removeEntry(entry);
        removed = true;
    }

    @Override
    public final void flush() throws Exception {
        if (removed) {
            writeRemovals();
            removed = false;
        }
    }

    @Override
    public final void refresh() throws Exception {
        flush();
        releaseIterator();
        ended = false;
    }

    private void releaseIterator() {
        if (iterating) {
            closeIterator();
            iterating = false;
        }
    }

    @Override
    public final void close() throws Exception {
        releaseIterator();
        closeRemovals();
    }
}
