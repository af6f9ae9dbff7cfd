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
import org.apache.flink.runtime.state.VoidNamespace;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The keys that have a value in a keyed state of the join, for restores, the flip and the drain.
 */
final class KeyedStateKeys {

    private KeyedStateKeys() {}

    static boolean hasKeys(KeyedStateBackend<Object> backend, String stateName) {
        try (Stream<Object> keys = backend.getKeys(stateName, VoidNamespace.INSTANCE)) {
            return keys.findAny().isPresent();
        }
    }

    /** The keys with a value in the state, collected first so that the state may change after. */
    static List<Object> keysOf(KeyedStateBackend<Object> backend, String stateName) {
        try (Stream<Object> keys = backend.getKeys(stateName, VoidNamespace.INSTANCE)) {
            return keys.collect(Collectors.toList());
        }
    }
}
