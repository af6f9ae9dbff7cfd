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

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A scan of a map state in its {@link StoreColumn}, as Flink's RocksDB and ForSt backends keep it:
 * one iterator over the column family, where the map state itself opens one and seeks for every
 * key.
 *
 * <p>What the scan relies on, which no interface of Flink states (pinned by {@code
 * ColumnFamilyMapStateScanTest} on each backend):
 *
 * <ul>
 *   <li>a map state's key in the store is the key group, the key and the namespace as {@link
 *       CompositeKeySerializationUtils} writes them, followed by the serialized map key, so that a
 *       key's entries follow one another in the order of their map keys;
 *   <li>a map state's value in the store is a flag that is true for a null value, followed by the
 *       serialized value;
 *   <li>the store orders its keys by their bytes, so that a key followed by a zero byte is the
 *       first key after it.
 * </ul>
 *
 * <p>Entries removed one after the other, as a drain removes them, go with one range removal, which
 * writes a single tombstone where a removal per entry writes one each: a long drain then neither
 * fills the store's write buffers with tombstones nor makes a checkpoint flush them.
 */
final class ColumnFamilyMapStateScan<K, V> implements MapStateScan<K, V> {

    /** Removals in a row from which the scan removes them with one range removal. */
    static final int RANGE_REMOVAL_MIN_ENTRIES = 64;

    private final StoreColumn column;
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

    /**
     * The entries removed one after the other since the last one the scan passed without removing
     * it, or since the last flush, in scan order; the store holds no other entry between them.
     */
    private final List<byte[]> run = new ArrayList<>();

    /**
     * The last entry of the run, once it is long enough for a range removal; the list then keeps no
     * more of it.
     */
    @Nullable private byte[] runEnd;

    /** Whether the current entry was removed. */
    private boolean currentRemoved;

    @SuppressWarnings("unchecked")
    ColumnFamilyMapStateScan(StoreColumn column, String stateName) {
        RegisteredStateMetaInfoBase metaInfo = column.metaInfo();
        if (!(metaInfo instanceof RegisteredKeyValueStateBackendMetaInfo)
                || !(((RegisteredKeyValueStateBackendMetaInfo<?, ?>) metaInfo).getStateSerializer()
                        instanceof MapSerializer)) {
            throw new IllegalArgumentException("The state " + stateName + " is not a map state.");
        }
        RegisteredKeyValueStateBackendMetaInfo<?, ?> keyValue =
                (RegisteredKeyValueStateBackendMetaInfo<?, ?>) metaInfo;
        this.column = column;
        this.keyGroupPrefixBytes = column.keyGroupPrefixBytes();
        this.keySerializer = (TypeSerializer<K>) column.keySerializer();
        this.namespaceSerializer = keyValue.getNamespaceSerializer();
        this.ambiguousKeyPossible =
                CompositeKeySerializationUtils.isAmbiguousKeyPossible(
                        keySerializer, namespaceSerializer);
        this.valueSerializer =
                ((MapSerializer<?, V>) keyValue.getStateSerializer()).getValueSerializer();
    }

    @Override
    public boolean next() throws Exception {
        if (ended) {
            return false;
        }
        if (!currentRemoved) {
            // An entry stays: the run ends before it.
            writeRun();
        }
        currentRemoved = false;
        if (!iterating) {
            column.openIterator();
            iterating = true;
            if (entry == null) {
                column.seekToFirst();
            } else {
                column.seek(entry);
                if (column.valid() && Arrays.equals(column.entryKey(), entry)) {
                    column.nextEntry();
                }
            }
        } else {
            column.nextEntry();
        }
        if (!column.valid()) {
            ended = true;
            return false;
        }
        byte[] next = column.entryKey();
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
        input.setBuffer(column.entryValue());
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
        if (currentRemoved) {
            return;
        }
        currentRemoved = true;
        if (runEnd != null) {
            runEnd = entry;
        } else {
            run.add(entry);
            if (run.size() == RANGE_REMOVAL_MIN_ENTRIES) {
                runEnd = entry;
            }
        }
    }

    /**
     * Writes the removals of the run out: a long run as one range removal, from its first entry to
     * just past its last, a short one entry by entry, as a range removal costs every later read of
     * the range a little until the store compacts it away.
     */
    private void writeRun() throws Exception {
        if (runEnd != null) {
            column.removeRange(run.get(0), Arrays.copyOf(runEnd, runEnd.length + 1));
            runEnd = null;
        } else {
            for (byte[] removal : run) {
                column.removeEntry(removal);
                removed = true;
            }
        }
        run.clear();
    }

    @Override
    public void flush() throws Exception {
        writeRun();
        currentRemoved = false;
        if (removed) {
            column.writeBatch();
            removed = false;
        }
    }

    @Override
    public void refresh() throws Exception {
        flush();
        releaseIterator();
        ended = false;
    }

    private void releaseIterator() {
        if (iterating) {
            column.closeIterator();
            iterating = false;
        }
    }

    @Override
    public void close() throws Exception {
        writeRun();
        releaseIterator();
        column.closeBatch();
    }
}
