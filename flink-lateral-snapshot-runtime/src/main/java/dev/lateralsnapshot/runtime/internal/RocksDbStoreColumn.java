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
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.RegisteredStateMetaInfoBase;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend.RocksDbKvStateInfo;
import org.apache.flink.state.rocksdb.RocksDBOperationUtils;
import org.apache.flink.state.rocksdb.RocksDBWriteBatchWrapper;
import org.apache.flink.state.rocksdb.RocksIteratorWrapper;

import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

import javax.annotation.Nullable;

import java.util.Map;

/**
 * A state's column family on Flink's RocksDB backend. It relies on {@link RocksDBKeyedStateBackend}
 * keeping its database in the field {@code db} and its states' column families and meta data in the
 * field {@code kvStateInformation}, with no accessor (pinned by {@code RocksDbStoreColumnTest}).
 */
final class RocksDbStoreColumn implements StoreColumn {

    static final String BACKEND_CLASS = "org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend";

    private final RocksDBKeyedStateBackend<?> backend;
    private final RocksDB db;
    private final RocksDbKvStateInfo state;
    private final ReadOptions readOptions;
    private final WriteOptions writeOptions;

    /** Made at the first put or removal: a column that is only read needs none. */
    @Nullable private RocksDBWriteBatchWrapper batch;

    @Nullable private RocksIteratorWrapper iterator;

    private RocksDbStoreColumn(
            RocksDBKeyedStateBackend<?> backend, RocksDB db, RocksDbKvStateInfo state) {
        this.backend = backend;
        this.db = db;
        this.state = state;
        this.readOptions = backend.getReadOptions();
        this.writeOptions = backend.getWriteOptions();
    }

    @SuppressWarnings("unchecked")
    static StoreColumn open(KeyedStateBackend<?> keyedBackend, String stateName) {
        RocksDBKeyedStateBackend<?> backend = (RocksDBKeyedStateBackend<?>) keyedBackend;
        RocksDB db = (RocksDB) StoreColumn.readField(RocksDBKeyedStateBackend.class, backend, "db");
        RocksDbKvStateInfo state =
                ((Map<String, RocksDbKvStateInfo>)
                                StoreColumn.readField(
                                        RocksDBKeyedStateBackend.class,
                                        backend,
                                        "kvStateInformation"))
                        .get(stateName);
        if (state == null) {
            throw new IllegalArgumentException(
                    "The RocksDB state backend has no state named " + stateName + ".");
        }
        return new RocksDbStoreColumn(backend, db, state);
    }

    @Override
    public int keyGroupPrefixBytes() {
        return backend.getKeyGroupPrefixBytes();
    }

    @Override
    public int numberOfKeyGroups() {
        return backend.getNumberOfKeyGroups();
    }

    @Override
    public TypeSerializer<?> keySerializer() {
        return backend.getKeySerializer();
    }

    @Override
    public Object currentKey() {
        return backend.getCurrentKey();
    }

    @Override
    public int currentKeyGroup() {
        return backend.getCurrentKeyGroupIndex();
    }

    @Override
    public RegisteredStateMetaInfoBase metaInfo() {
        return state.metaInfo;
    }

    @Override
    public void openIterator() {
        iterator =
                RocksDBOperationUtils.getRocksIterator(db, state.columnFamilyHandle, readOptions);
    }

    @Override
    public void seekToFirst() {
        iterator.seekToFirst();
    }

    @Override
    public void seek(byte[] target) {
        iterator.seek(target);
    }

    @Override
    public void nextEntry() {
        iterator.next();
    }

    @Override
    public boolean valid() {
        return iterator.isValid();
    }

    @Override
    public byte[] entryKey() {
        return iterator.key();
    }

    @Override
    public byte[] entryValue() {
        return iterator.value();
    }

    @Override
    public void closeIterator() {
        iterator.close();
        iterator = null;
    }

    @Override
    public void putEntry(byte[] storeKey, byte[] value) throws Exception {
        batch().put(state.columnFamilyHandle, storeKey, value);
    }

    @Override
    public void removeEntry(byte[] storeKey) throws Exception {
        batch().remove(state.columnFamilyHandle, storeKey);
    }

    private RocksDBWriteBatchWrapper batch() {
        if (batch == null) {
            batch = new RocksDBWriteBatchWrapper(db, writeOptions, ENTRIES_PER_BATCH, 0);
        }
        return batch;
    }

    @Override
    public void removeRange(byte[] from, byte[] to) throws Exception {
        db.deleteRange(state.columnFamilyHandle, writeOptions, from, to);
    }

    @Override
    public void writeBatch() throws Exception {
        if (batch != null) {
            batch.flush();
        }
    }

    @Override
    public void closeBatch() throws Exception {
        if (batch != null) {
            batch.close();
            batch = null;
        }
    }
}
