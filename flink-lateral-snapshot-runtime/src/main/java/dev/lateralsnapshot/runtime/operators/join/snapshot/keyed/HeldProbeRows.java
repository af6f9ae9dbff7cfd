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

import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.table.data.RowData;

import java.util.ArrayList;
import java.util.List;

/**
 * Probe rows with their keys in the order they came, held on the heap outside the keyed state until
 * they are taken in that order or written into the state. On the heap backend a row put into a map
 * state costs a lookup of its key in the state table, a new map for a new key and a second lookup
 * to store it, and the drain then looks every key up again: rows held here cost an append, and a
 * drain that takes them from here costs nothing more.
 */
final class HeldProbeRows {

    private List<Object> keys = new ArrayList<>();
    private List<RowData> rows = new ArrayList<>();

    /** The first row not taken yet. */
    private int next;

    void add(Object key, RowData row) {
        keys.add(key);
        rows.add(row);
    }

    /** Whether every row held was taken or written. */
    boolean isEmpty() {
        return next == rows.size();
    }

    /** The key of the row {@link #take} returns next. */
    Object nextKey() {
        return keys.get(next);
    }

    /** Takes the next row; the held ones let go of it. */
    RowData take() {
        RowData row = rows.get(next);
        keys.set(next, null);
        rows.set(next, null);
        next++;
        if (isEmpty()) {
            clear();
        }
        return row;
    }

    /** The keys of the rows not taken yet, one for each row. */
    List<Object> keysLeft() {
        return keys.subList(next, keys.size());
    }

    /**
     * Hands the rows not taken yet, in the order they came, each with its key as the current key,
     * to a writer into the state, and lets go of each once it is written: should a write fail, the
     * rows written are no longer held and the others still are. The current key is set back after.
     */
    void writeTo(KeyContext keyContext, RowWriter writer) throws Exception {
        if (isEmpty()) {
            return;
        }
        Object currentKey = keyContext.getCurrentKey();
        while (!isEmpty()) {
            keyContext.setCurrentKey(keys.get(next));
            writer.write(rows.get(next));
            take();
        }
        if (currentKey != null) {
            keyContext.setCurrentKey(currentKey);
        }
    }

    /** Writes a probe row of the current key into the state. */
    @FunctionalInterface
    interface RowWriter {
        void write(RowData probeRow) throws Exception;
    }

    private void clear() {
        keys = new ArrayList<>();
        rows = new ArrayList<>();
        next = 0;
    }
}
