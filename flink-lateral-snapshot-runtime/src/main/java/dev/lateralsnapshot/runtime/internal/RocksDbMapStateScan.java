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

import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend.RocksDbKvStateInfo;
import org.apache.flink.state.rocksdb.RocksDBOperationUtils;
import org.apache.flink.state.rocksdb.RocksDBWriteBatchWrapper;
import org.apache.flink.state.rocksdb.RocksIteratorWrapper;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;

import java.util.Map;

/**
 * The scan of a map state on Flink's RocksDB backend. Besides the layout of {@link
 * ColumnFamilyMapStateScan}, it relies on {@link RocksDBKeyedStateBackend} keeping its database in
 * the field {@code db} and its states' column families and meta data in the field {@code
 * kvStateInformation}, with no accessor (pinned by {@code RocksDbMapStateScanTest}).
 */
final class RocksDbMapStateScan<K, V> extends ColumnFamilyMapStateScan<K, V> {

    static final String BACKEND_CLASS = "org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend";

    private final RocksDB db;
    private final ColumnFamilyHandle column;
    private final ReadOptions readOptions;
    private final RocksDBWriteBatchWrapper removals;
    private RocksIteratorWrapper iterator;

    private RocksDbMapStateScan(
            RocksDBKeyedStateBackend<K> backend,
            RocksDB db,
            RocksDbKvStateInfo state,
            String name) {
        super(backend.getKeyGroupPrefixBytes(), backend.getKeySerializer(), state.metaInfo, name);
        this.db = db;
        this.column = state.columnFamilyHandle;
        this.readOptions = backend.getReadOptions();
        this.removals =
                new RocksDBWriteBatchWrapper(db, backend.getWriteOptions(), REMOVALS_PER_BATCH, 0);
    }

    @SuppressWarnings("unchecked")
    static <K, V> MapStateScan<K, V> open(KeyedStateBackend<K> keyedBackend, String stateName) {
        RocksDBKeyedStateBackend<K> backend = (RocksDBKeyedStateBackend<K>) keyedBackend;
        RocksDB db = (RocksDB) readField(RocksDBKeyedStateBackend.class, backend, "db");
        RocksDbKvStateInfo state =
                ((Map<String, RocksDbKvStateInfo>)
                                readField(
                                        RocksDBKeyedStateBackend.class,
                                        backend,
                                        "kvStateInformation"))
                        .get(stateName);
        if (state == null) {
            throw new IllegalArgumentException(
                    "The RocksDB state backend has no state named " + stateName + ".");
        }
        return new RocksDbMapStateScan<>(backend, db, state, stateName);
    }

    @Override
    void openIterator() {
        iterator = RocksDBOperationUtils.getRocksIterator(db, column, readOptions);
    }

    @Override
    void seekToFirst() {
        iterator.seekToFirst();
    }

    @Override
    void seek(byte[] target) {
        iterator.seek(target);
    }

    @Override
    void nextEntry() {
        iterator.next();
    }

    @Override
    boolean valid() {
        return iterator.isValid();
    }

    @Override
    byte[] entryKey() {
        return iterator.key();
    }

    @Override
    byte[] entryValue() {
        return iterator.value();
    }

    @Override
    void closeIterator() {
        iterator.close();
        iterator = null;
    }

    @Override
    void removeEntry(byte[] storeKey) throws Exception {
        removals.remove(column, storeKey);
    }

    @Override
    void writeRemovals() throws Exception {
        removals.flush();
    }

    @Override
    void closeRemovals() throws Exception {
        removals.close();
    }
}
