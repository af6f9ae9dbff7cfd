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

import javax.annotation.Nullable;

import java.util.Optional;

/**
 * Reads the values of a value state for keys asked in the order the backend keeps them, by one
 * iterator that moves forward from key to key, where a read of the state itself looks every key up
 * from the top of the store. Keys asked in another order are read correctly, only not faster.
 *
 * <p>A cursor sees the state as it was when it was opened or last {@link #reset}: reset it after
 * every write to the state.
 *
 * @param <K> the keys of the backend
 * @param <V> the values of the state
 */
@Internal
public interface ValueStateCursor<K, V> extends AutoCloseable {

    /**
     * Opens a cursor over the value state of this name, registered with the backend before, whose
     * namespace is the void one; empty where the backend has no such cursor (Flink's RocksDB and
     * ForSt backends have one; the heap backend has none).
     */
    static <K, V> Optional<ValueStateCursor<K, V>> open(
            KeyedStateBackend<K> backend, String stateName) {
        return StoreColumn.open(backend, stateName)
                .map(column -> new ColumnFamilyValueStateCursor<>(column, stateName));
    }

    /** The value of the key; null when it has none. */
    @Nullable
    V value(K key) throws Exception;

    /** Lets the cursor see the writes made since it was opened or last reset. */
    void reset();

    /** Lets go of what the cursor holds in the backend. */
    @Override
    void close();
}
