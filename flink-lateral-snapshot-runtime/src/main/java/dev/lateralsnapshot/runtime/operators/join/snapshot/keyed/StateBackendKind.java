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

package dev.lateralsnapshot.runtime.operators.join.snapshot.keyed;

import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.TestableKeyedStateBackend;
import org.apache.flink.runtime.state.heap.HeapKeyedStateBackend;

/**
 * How a keyed state backend keeps the state, which decides two things about the join's keyed state:
 * whether an index of the build rows on the heap pays (it does where the backend holds the same
 * objects, and would be a second copy where it holds bytes), and whether a key's map entries come
 * in the order of their serialized keys, which lets the drain stream the probe buffer.
 *
 * <p>Decided by the type of the backend behind any wrapper, such as the changelog backend (Flink's
 * {@code TestableKeyedStateBackend#getDelegatedKeyedStateBackend}); {@code StateBackendKindTest}
 * checks each kind on the backends Flink 2.3 ships.
 */
enum StateBackendKind {

    /** The hashmap backend: values are the objects written, maps iterate in no order. */
    OBJECTS_ON_HEAP,

    /**
     * RocksDB and ForSt: values are serialized, and a key's map entries iterate in the order of
     * their serialized keys.
     */
    SERIALIZED_IN_KEY_ORDER;

    static StateBackendKind of(KeyedStateBackend<?> backend) {
        KeyedStateBackend<?> actual =
                backend instanceof TestableKeyedStateBackend
                        ? ((TestableKeyedStateBackend<?>) backend)
                                .getDelegatedKeyedStateBackend(true)
                        : backend;
        return actual instanceof HeapKeyedStateBackend ? OBJECTS_ON_HEAP : SERIALIZED_IN_KEY_ORDER;
    }
}
