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

package dev.lateralsnapshot.runtime.operators.join.snapshot.index;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * A set of binary key rows, for the keys the keyed join's TTL clock remembers: every probe row that
 * finds build rows looks its key up, so a lookup must cost less than the state read it saves. The
 * keys are those of a {@link BinaryKeyIndex}, which holds a key row of sixteen bytes (a key of one
 * column of a fixed-size type, say) in place, so that a lookup reads no key object.
 */
@Internal
public final class BinaryKeySet {

    private final BinaryKeyIndex<Boolean> keys = new BinaryKeyIndex<>();

    public int size() {
        return keys.size();
    }

    public boolean contains(BinaryRowData key) {
        return keys.containsKey(key);
    }

    public void add(BinaryRowData key) {
        keys.put(key, Boolean.TRUE);
    }

    /** Removes every key, keeping the capacity the set has grown to. */
    public void clear() {
        keys.clear();
    }
}
