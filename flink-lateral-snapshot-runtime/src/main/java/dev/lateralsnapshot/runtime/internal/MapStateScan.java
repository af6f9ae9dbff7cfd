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

import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.state.KeyedStateBackend;

import java.util.Optional;

/**
 * One pass over the entries of a map state, for every key of a keyed state backend at once, in the
 * order the backend keeps them, removing entries as it goes. Where the backend has a map's entries
 * of all keys in one sorted store, this replaces a lookup per key by one iterator.
 *
 * <p>A scan sees the entries as they were when it started or when it was last {@link #refresh
 * refreshed}; the entries of a key come one after the other, in the order of their serialized map
 * keys.
 *
 * @param <K> the keys of the backend
 * @param <V> the values of the map
 */
@Internal
public interface MapStateScan<K, V> extends AutoCloseable {

    /**
     * Opens a scan of the map state of this name, registered with the backend before; empty where
     * the backend has no such scan (Flink's RocksDB and ForSt backends have one; the heap backend
     * has none). The map's values must be non-null.
     */
    static <K, V> Optional<MapStateScan<K, V>> open(
            KeyedStateBackend<K> backend, String stateName) {
        return StoreColumn.open(backend, stateName)
                .map(column -> new ColumnFamilyMapStateScan<>(column, stateName));
    }

    /** Moves to the next entry; returns false when none is left. */
    boolean next() throws Exception;

    /** The key of the entry. */
    K key();

    /** Whether the entry has the key of the entry before it in this scan. */
    boolean sameKeyAsPrevious();

    /** The value of the entry. */
    V value();

    /**
     * Removes the entry from the state, at the latest at the next {@link #flush}. Entries removed
     * one after the other may go with one removal of the range they span: until the next flush,
     * nothing may write to the state.
     */
    void removeCurrent() throws Exception;

    /** Writes the removals out, so that reads of the state and its snapshots see them. */
    void flush() throws Exception;

    /**
     * Flushes, and lets the scan see the entries written since it started: it goes on after the
     * last entry it returned, which is where entries written since for keys ahead come too.
     */
    void refresh() throws Exception;

    /** Flushes and lets go of what the scan holds in the backend. */
    @Override
    void close() throws Exception;
}
