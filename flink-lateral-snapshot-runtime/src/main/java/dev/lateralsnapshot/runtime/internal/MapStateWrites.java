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
 * Puts into a map state, held and written to the store together in the order the backend keeps its
 * keys, which costs the store less than the same puts one by one in the order they come. Reads of
 * the state see the puts once they are {@link #write written out}; until then the caller must not
 * read the state, nor let a snapshot of the backend be taken.
 *
 * @param <UK> the keys of the map
 * @param <UV> the values of the map
 */
@Internal
public interface MapStateWrites<UK, UV> {

    /**
     * Opens the writes into the map state of this name, registered with the backend before, whose
     * namespace is the void one; empty where the backend has no such writes (Flink's RocksDB and
     * ForSt backends have them; the heap backend has none).
     */
    static <UK, UV> Optional<MapStateWrites<UK, UV>> open(
            KeyedStateBackend<?> backend, String stateName) {
        return StoreColumn.open(backend, stateName)
                .map(column -> new ColumnFamilyMapStateWrites<>(column, stateName));
    }

    /**
     * Holds the put of a non-null value under a map key of the backend's current key; the writes
     * write themselves out when they hold many.
     */
    void put(UK mapKey, UV value) throws Exception;

    /** Writes the puts held out. */
    void write() throws Exception;

    /** Drops the puts held. */
    void discard();
}
