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

/**
 * The probe rows buffered in the load phase, in keyed state; the operator sets the key before every
 * call. A key's rows are kept by a sequence number, not in a list: the flip then streams them from
 * the state backend instead of reading a hot key's whole buffer into memory.
 */
final class ProbeBuffer {

    static final String ROWS_STATE = "probe-buffer";
    static final String SEQUENCE_STATE = "probe-buffer-sequence";

    private final UnionLongState sequenceState;

    /** The next sequence number; unique in the subtask and, after a restore, above all restored. */
    private long sequence;

    private MapState<Long, RowData> rows;

    /** Called from the operator's {@code initializeState}, where the operator state is. */
    ProbeBuffer(OperatorStateStore operatorState) throws Exception {
        this.sequenceState = new UnionLongState(operatorState, SEQUENCE_STATE);
        this.sequence = sequenceState.max(0);
    }

    /** Called from the operator's {@code open}. */
    void open(KeyedStateStore store, InternalTypeInfo<RowData> probeType) {
        this.rows = store.getMapState(new MapStateDescriptor<>(ROWS_STATE, Types.LONG, probeType));
    }

    void snapshotState() throws Exception {
        sequenceState.update(sequence);
    }

    void add(RowData probeRow) throws Exception {
        rows.put(sequence++, probeRow);
    }

    /** The current key's rows, in the order they were added. */
    Iterable<RowData> rows() throws Exception {
        return rows.values();
    }

    void clear() {
        rows.clear();
    }
}
