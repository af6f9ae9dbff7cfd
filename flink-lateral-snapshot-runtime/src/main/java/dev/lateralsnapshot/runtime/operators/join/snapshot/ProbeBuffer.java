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

package dev.lateralsnapshot.runtime.operators.join.snapshot;

import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The probe rows buffered in the load phase, and during the drain at the flip behind the rows of
 * their key, in keyed state; the operator sets the key before every call. A key's rows are kept by
 * a sequence number, not in a list: the drain then streams them from the state backend instead of
 * reading a hot key's whole buffer into memory, and takes them out one by one, so that a checkpoint
 * between two slices of the drain keeps exactly the rows not joined yet.
 */
final class ProbeBuffer {

    static final String ROWS_STATE = "probe-buffer";
    static final String SEQUENCE_STATE = "probe-buffer-sequence";

    private final UnionLongState sequenceState;

    /** The next sequence number; unique in the subtask and, after a restore, above all restored. */
    private long sequence;

    private MapState<Long, RowData> rows;

    /** Whether the state backend iterates a key's rows in the order of their sequence numbers. */
    private boolean iteratesInOrder;

    /** Called from the operator's {@code initializeState}, where the operator state is. */
    ProbeBuffer(OperatorStateStore operatorState) throws Exception {
        this.sequenceState = new UnionLongState(operatorState, SEQUENCE_STATE);
        this.sequence = sequenceState.max(0);
    }

    /**
     * Called from the operator's {@code open}.
     *
     * @param iteratesInOrder whether the backend iterates map entries in the order of their
     *     serialized keys, as RocksDB does; big-endian sequence numbers then come in ascending
     *     order
     */
    void open(KeyedStateStore store, InternalTypeInfo<RowData> probeType, boolean iteratesInOrder) {
        this.rows = store.getMapState(new MapStateDescriptor<>(ROWS_STATE, Types.LONG, probeType));
        this.iteratesInOrder = iteratesInOrder;
    }

    void snapshotState() throws Exception {
        sequenceState.update(sequence);
    }

    void add(RowData probeRow) throws Exception {
        rows.put(sequence++, probeRow);
    }

    /**
     * The current key's rows in the order they were added, each removed from the buffer when the
     * iterator returns it. The iterator stays usable when other keys are set in between; the caller
     * sets this key again before it calls it. Rows added after this call may or may not be
     * returned: drain again for those it did not return.
     */
    Iterator<RowData> drain() throws Exception {
        if (iteratesInOrder) {
            return new RemovingIterator(rows.iterator(), true);
        }
        // A hash map iterates in no order, and fails when rows are added while it runs: take the
        // entries out of it, which on the heap are only references, and sort them.
        List<Map.Entry<Long, RowData>> entries = new ArrayList<>();
        for (Map.Entry<Long, RowData> entry : rows.entries()) {
            entries.add(Map.entry(entry.getKey(), entry.getValue()));
        }
        entries.sort(Map.Entry.comparingByKey(Comparator.naturalOrder()));
        return new RemovingIterator(entries.iterator(), false);
    }

    /** Returns the rows of entries and removes each from the state when it returns it. */
    private final class RemovingIterator implements Iterator<RowData> {
        private final Iterator<Map.Entry<Long, RowData>> entries;

        /**
         * Whether the entries are the state's own, removed through their iterator: RocksDB's map
         * iterator reads on after the last entry it returned, and skips one more when that entry
         * was removed other than through it.
         */
        private final boolean ofState;

        RemovingIterator(Iterator<Map.Entry<Long, RowData>> entries, boolean ofState) {
            this.entries = entries;
            this.ofState = ofState;
        }

        @Override
        public boolean hasNext() {
            return entries.hasNext();
        }

        @Override
        public RowData next() {
            if (!entries.hasNext()) {
                throw new NoSuchElementException();
            }
            Map.Entry<Long, RowData> entry = entries.next();
            RowData row = entry.getValue();
            try {
                if (ofState) {
                    entries.remove();
                } else {
                    rows.remove(entry.getKey());
                }
            } catch (Exception e) {
                throw new IllegalStateException("Could not remove a drained probe row.", e);
            }
            return row;
        }
    }
}
