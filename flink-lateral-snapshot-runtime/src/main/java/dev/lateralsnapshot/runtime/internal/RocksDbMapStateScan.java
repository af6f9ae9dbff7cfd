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
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend.RocksDbKvStateInfo;
import org.apache.flink.state.rocksdb.RocksDBOperationUtils;
import org.apache.flink.state.rocksdb.RocksDBWriteBatchWrapper;
import org.apache.flink.state.rocksdb.RocksIteratorWrapper;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;

import javax.annotation.Nullable;

import java.io.IOException;
import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.Map;

/**
 * The scan of a map state on Flink's RocksDB backend: one RocksDB iterator over the state's column
 * family, where the map state itself opens an iterator and seeks for every key. Removals go to
 * RocksDB in write batches.
 *
 * <p>What it relies on, which no interface of Flink states (pinned by {@code
 * RocksDbMapStateScanTest}):
 *
 * <ul>
 *   <li>{@link RocksDBKeyedStateBackend} keeps its database in the field {@code db} and its states'
 *       column families and meta data in the field {@code kvStateInformation}, with no accessor;
 *   <li>a map state's RocksDB key is the key group, the key and the namespace as {@link
 *       CompositeKeySerializationUtils} writes them, followed by the serialized map key, so that a
 *       key's entries follow one another in the order of their map keys;
 *   <li>a map state's RocksDB value is a flag that is true for a null value, followed by the
 *       serialized value.
 * </ul>
 */
final class RocksDbMapStateScan<K, V> implements MapStateScan<K, V> {

    static final String BACKEND_CLASS = "org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend";

    /** Removals per write batch. */
    private static final int REMOVALS_PER_BATCH = 1_000;

    private final RocksDB db;
    private final ColumnFamilyHandle column;
    private final ReadOptions readOptions;
    private final int keyGroupPrefixBytes;
    private final TypeSerializer<K> keySerializer;
    private final TypeSerializer<?> namespaceSerializer;
    private final boolean ambiguousKeyPossible;
    private final TypeSerializer<V> valueSerializer;
    private final RocksDBWriteBatchWrapper removals;
    private final DataInputDeserializer input = new DataInputDeserializer();

    /** Null before the first entry and after a refresh. */
    @Nullable private RocksIteratorWrapper iterator;

    /** The RocksDB key of the current entry; null before the first. */
    @Nullable private byte[] entry;

    /** The key group, key and namespace of the current entry. */
    @Nullable private byte[] entryPrefix;

    private K key;
    private V value;
    private boolean sameKeyAsPrevious;
    private boolean ended;

    /** Whether removals may wait in the write batch. */
    private boolean removed;

    private RocksDbMapStateScan(
            RocksDB db,
            ColumnFamilyHandle column,
            RocksDBKeyedStateBackend<K> backend,
            TypeSerializer<?> namespaceSerializer,
            TypeSerializer<V> valueSerializer) {
        this.db = db;
        this.column = column;
        this.readOptions = backend.getReadOptions();
        this.keyGroupPrefixBytes = backend.getKeyGroupPrefixBytes();
        this.keySerializer = backend.getKeySerializer();
        this.namespaceSerializer = namespaceSerializer;
        this.ambiguousKeyPossible =
                CompositeKeySerializationUtils.isAmbiguousKeyPossible(
                        keySerializer, namespaceSerializer);
        this.valueSerializer = valueSerializer;
        this.removals =
                new RocksDBWriteBatchWrapper(db, backend.getWriteOptions(), REMOVALS_PER_BATCH, 0);
    }

    @SuppressWarnings("unchecked")
    static <K, V> MapStateScan<K, V> open(KeyedStateBackend<K> keyedBackend, String stateName) {
        RocksDBKeyedStateBackend<K> backend = (RocksDBKeyedStateBackend<K>) keyedBackend;
        RocksDB db = (RocksDB) read(backend, "db");
        RocksDbKvStateInfo state =
                ((Map<String, RocksDbKvStateInfo>) read(backend, "kvStateInformation"))
                        .get(stateName);
        if (state == null
                || !(state.metaInfo instanceof RegisteredKeyValueStateBackendMetaInfo)
                || !(((RegisteredKeyValueStateBackendMetaInfo<?, ?>) state.metaInfo)
                                .getStateSerializer()
                        instanceof MapSerializer)) {
            throw new IllegalArgumentException(
                    "The RocksDB state backend has no map state named " + stateName + ".");
        }
        RegisteredKeyValueStateBackendMetaInfo<?, ?> metaInfo =
                (RegisteredKeyValueStateBackendMetaInfo<?, ?>) state.metaInfo;
        return new RocksDbMapStateScan<>(
                db,
                state.columnFamilyHandle,
                backend,
                metaInfo.getNamespaceSerializer(),
                ((MapSerializer<?, V>) metaInfo.getStateSerializer()).getValueSerializer());
    }

    private static Object read(RocksDBKeyedStateBackend<?> backend, String fieldName) {
        try {
            Field field = RocksDBKeyedStateBackend.class.getDeclaredField(fieldName);
            field.setAccessible(true);
            return field.get(backend);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "Flink's RocksDBKeyedStateBackend has no readable field "
                            + fieldName
                            + ", which the LATERAL SNAPSHOT join reads to drain its buffered probe"
                            + " rows in one pass. This Flink version is not supported.",
                    e);
        }
    }

    @Override
    public boolean next() throws IOException {
        if (ended) {
            return false;
        }
        if (iterator == null) {
            iterator = RocksDBOperationUtils.getRocksIterator(db, column, readOptions);
            if (entry == null) {
                iterator.seekToFirst();
            } else {
                iterator.seek(entry);
                if (iterator.isValid() && Arrays.equals(iterator.key(), entry)) {
                    iterator.next();
                }
            }
        } else {
            iterator.next();
        }
        if (!iterator.isValid()) {
            ended = true;
            return false;
        }
        byte[] next = iterator.key();
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
        input.setBuffer(iterator.value());
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
    public K key() {
        return key;
    }

    @Override
    public boolean sameKeyAsPrevious() {
        return sameKeyAsPrevious;
    }

    @Override
    public V value() {
        return value;
    }

    @Override
    public void removeCurrent() throws Exception {
        if (entry == null) {
            throw new IllegalStateException("The scan is at no entry.");
        }
        removals.remove(column, entry);
        removed = true;
    }

    @Override
    public void flush() throws Exception {
        if (removed) {
            removals.flush();
            removed = false;
        }
    }

    @Override
    public void refresh() throws Exception {
        flush();
        closeIterator();
        ended = false;
    }

    private void closeIterator() {
        if (iterator != null) {
            iterator.close();
            iterator = null;
        }
    }

    @Override
    public void close() throws Exception {
        closeIterator();
        removals.close();
    }
}
