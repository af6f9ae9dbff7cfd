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
import org.apache.flink.state.forst.ForStDBWriteBatchWrapper;
import org.apache.flink.state.forst.ForStOperationUtils;
import org.apache.flink.state.forst.ForStOperationUtils.ForStKvStateInfo;
import org.apache.flink.state.forst.sync.ForStIteratorWrapper;
import org.apache.flink.state.forst.sync.ForStSyncKeyedStateBackend;

import org.forstdb.ColumnFamilyHandle;
import org.forstdb.ReadOptions;
import org.forstdb.RocksDB;

import java.util.Map;

/**
 * The scan of a map state on Flink's ForSt backend, as the join's keyed state API reaches it
 * ({@link ForStSyncKeyedStateBackend}). Besides the layout of {@link ColumnFamilyMapStateScan},
 * which ForSt keeps as RocksDB does, it relies on the backend keeping its store in the field {@code
 * db} and its states' column families and meta data in the field {@code kvStateInformation}, with
 * no accessor (pinned by {@code ForStMapStateScanTest}).
 */
final class ForStMapStateScan<K, V> extends ColumnFamilyMapStateScan<K, V> {

    static final String BACKEND_CLASS =
            "org.apache.flink.state.forst.sync.ForStSyncKeyedStateBackend";

    private final RocksDB db;
    private final ColumnFamilyHandle column;
    private final ReadOptions readOptions;
    private final ForStDBWriteBatchWrapper removals;
    private ForStIteratorWrapper iterator;

    private ForStMapStateScan(
            ForStSyncKeyedStateBackend<K> backend,
            RocksDB db,
            ForStKvStateInfo state,
            String name) {
        super(backend.getKeyGroupPrefixBytes(), backend.getKeySerializer(), state.metaInfo, name);
        this.db = db;
        this.column = state.columnFamilyHandle;
        this.readOptions = backend.getReadOptions();
        this.removals =
                new ForStDBWriteBatchWrapper(db, backend.getWriteOptions(), REMOVALS_PER_BATCH, 0);
    }

    @SuppressWarnings("unchecked")
    static <K, V> MapStateScan<K, V> open(KeyedStateBackend<K> keyedBackend, String stateName) {
        ForStSyncKeyedStateBackend<K> backend = (ForStSyncKeyedStateBackend<K>) keyedBackend;
        RocksDB db = (RocksDB) readField(ForStSyncKeyedStateBackend.class, backend, "db");
        ForStKvStateInfo state =
                ((Map<String, ForStKvStateInfo>)
                                readField(
                                        ForStSyncKeyedStateBackend.class,
                                        backend,
                                        "kvStateInformation"))
                        .get(stateName);
        if (state == null) {
            throw new IllegalArgumentException(
                    "The ForSt state backend has no state named " + stateName + ".");
        }
        return new ForStMapStateScan<>(backend, db, state, stateName);
    }

    @Override
    void openIterator() {
        iterator = ForStOperationUtils.getForStIterator(db, column, readOptions);
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
