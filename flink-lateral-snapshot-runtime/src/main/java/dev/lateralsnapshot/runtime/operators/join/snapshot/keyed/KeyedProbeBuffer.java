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

import dev.lateralsnapshot.runtime.internal.MapStateScan;
import dev.lateralsnapshot.runtime.internal.MapStateWrites;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateNames;
import dev.lateralsnapshot.runtime.operators.join.snapshot.ProbeBuffer;
import dev.lateralsnapshot.runtime.operators.join.snapshot.UnionLongState;

import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The probe rows buffered in the load phase, and during the drain at the flip behind the rows of
 * their key, in keyed state under the current key. A key's rows are kept by a sequence number, not
 * in a list: the drain then streams them from the state backend instead of reading a hot key's
 * whole buffer into memory, and takes them out one by one, so that a checkpoint between two slices
 * of the drain keeps exactly the rows not joined yet. On the heap backend the rows of a load phase
 * stay out of the state until a snapshot needs them there ({@link HeldProbeRows}).
 */
final class KeyedProbeBuffer implements ProbeBuffer {

    private final UnionLongState sequenceState;

    /** The next sequence number; unique in the subtask and, after a restore, above all restored. */
    private long sequence;

    private KeyedStateBackend<Object> backend;
    private KeyContext keys;
    private MapState<Long, RowData> rows;

    /**
     * Where the backend has them, the writes that hold the rows buffered while no drain runs, until
     * a read of the buffer or a snapshot: the load phase's rows, which nothing reads until the
     * flip, reach the store in its order of keys.
     */
    @Nullable private MapStateWrites<Long, RowData> heldRows;

    /**
     * On the heap backend, the rows buffered while no drain runs, until a snapshot: a drain takes
     * them from here after the rows in the state, and the state never sees the rows of a load phase
     * in which no snapshot was taken. Null on the other backends, which hold their writes in {@link
     * #heldRows}.
     */
    @Nullable private HeldProbeRows heldOnHeap;

    /** Whether the state backend iterates a key's rows in the order of their sequence numbers. */
    private boolean iteratesInOrder;

    /** The drain under way; null when none is. */
    @Nullable private StagedProbeDrain drain;

    /** Called from the operator's {@code initializeState}, where the operator state is. */
    KeyedProbeBuffer(OperatorStateStore operatorState) throws Exception {
        this.sequenceState =
                new UnionLongState(
                        operatorState, LateralSnapshotJoinStateNames.PROBE_BUFFER_SEQUENCE);
        this.sequence = sequenceState.max(0);
    }

    /** Called from the operator's {@code open}. */
    void open(
            KeyedStateBackend<Object> backend,
            KeyedStateStore store,
            KeyContext keys,
            InternalTypeInfo<RowData> probeType,
            StateBackendKind backendKind) {
        this.backend = backend;
        this.keys = keys;
        this.rows =
                store.getMapState(
                        new MapStateDescriptor<>(
                                LateralSnapshotJoinStateNames.PROBE_BUFFER, Types.LONG, probeType));
        this.heldRows =
                MapStateWrites.<Long, RowData>open(
                                backend, LateralSnapshotJoinStateNames.PROBE_BUFFER)
                        .orElse(null);
        // Big-endian sequence numbers come in ascending order from a backend that iterates map
        // entries in the order of their serialized keys.
        this.iteratesInOrder = backendKind == StateBackendKind.SERIALIZED_IN_KEY_ORDER;
        this.heldOnHeap =
                backendKind == StateBackendKind.OBJECTS_ON_HEAP ? new HeldProbeRows() : null;
    }

    void snapshot() throws Exception {
        writeHeldRows();
        if (drain != null) {
            drain.snapshot();
        } else {
            writeHeldOnHeap();
        }
        sequenceState.update(sequence);
    }

    @Override
    public void add(RowData probeRow) throws Exception {
        if (drain != null) {
            drain.add(probeRow);
        } else if (heldRows != null) {
            heldRows.put(sequence++, probeRow);
        } else if (heldOnHeap != null) {
            heldOnHeap.add(keys.getCurrentKey(), probeRow);
        } else {
            putIntoState(probeRow);
        }
    }

    /** Before every read of the buffer and every snapshot: writes the rows held out, if any. */
    private void writeHeldRows() throws Exception {
        if (heldRows != null) {
            heldRows.write();
        }
    }

    /** Writes the rows held on the heap into the state, behind the rows there. */
    private void writeHeldOnHeap() throws Exception {
        if (heldOnHeap != null) {
            heldOnHeap.writeTo(keys, this::putIntoState);
        }
    }

    /** Puts a row of the current key into the state, behind the rows of the key there. */
    private void putIntoState(RowData probeRow) throws Exception {
        rows.put(sequence++, probeRow);
    }

    @Override
    public boolean isEmpty() throws Exception {
        writeHeldRows();
        return (heldOnHeap == null || heldOnHeap.isEmpty())
                && !KeyedStateKeys.hasKeys(backend, LateralSnapshotJoinStateNames.PROBE_BUFFER);
    }

    @Override
    public Drain startDrain() throws Exception {
        writeHeldRows();
        drain =
                new StagedProbeDrain(
                        keys,
                        KeyedStateKeys.hasKeys(backend, LateralSnapshotJoinStateNames.PROBE_BUFFER)
                                ? drainOfState()
                                : null,
                        heldOnHeap != null && !heldOnHeap.isEmpty() ? heldOnHeap : null,
                        this::drainOfState,
                        this::putIntoState,
                        () -> drain = null);
        return drain;
    }

    private StagedProbeDrain.StateDrain drainOfState() throws Exception {
        Optional<MapStateScan<Object, RowData>> scan =
                MapStateScan.open(backend, LateralSnapshotJoinStateNames.PROBE_BUFFER);
        return scan.isPresent() ? new ScanDrain(scan.get()) : new KeyedDrain();
    }

    @Override
    public void close() throws Exception {
        if (heldRows != null) {
            // The state goes with the operator: rows not written out have nowhere to go.
            heldRows.discard();
        }
        if (drain != null) {
            drain.close();
            drain = null;
        }
    }

    /**
     * Drains in one pass over the buffer's state, where the backend has such a scan, in the order
     * the backend keeps the keys: instead of a lookup per key, which is most of a drain's time on
     * RocksDB when a key holds a few rows. The rows of a key not joined yet are all in the state,
     * so a key holds rows exactly while the state has rows of it. Rows buffered while the drain
     * runs are seen after a refresh of the scan, which resumes where it stopped: they are behind
     * the earlier rows of their key, whether the scan is at that key or not there yet.
     */
    private final class ScanDrain implements StagedProbeDrain.StateDrain {

        private final MapStateScan<Object, RowData> scan;

        /** Whether rows were buffered since the scan started or was last refreshed. */
        private boolean rowsAdded;

        ScanDrain(MapStateScan<Object, RowData> scan) {
            this.scan = scan;
        }

        @Override
        public boolean holdsCurrentKey() throws Exception {
            return !rows.isEmpty();
        }

        @Override
        public void add(RowData probeRow) throws Exception {
            putIntoState(probeRow);
            rowsAdded = true;
        }

        @Override
        public boolean drain(long budget, long nanos, DrainedRows joiner) throws Exception {
            if (rowsAdded) {
                scan.refresh();
                rowsAdded = false;
            }
            long start = System.nanoTime();
            long spent = 0;
            while (scan.next()) {
                RowData key = (RowData) scan.key();
                boolean sameKey = scan.sameKeyAsPrevious();
                keys.setCurrentKey(key);
                RowData probeRow = scan.value();
                scan.removeCurrent();
                // A key counts one row of the budget on top of its rows, as in the other drain.
                spent += joiner.join(probeRow, key, sameKey) + (sameKey ? 0 : 1);
                if (spent >= budget || System.nanoTime() - start >= nanos) {
                    // Until the next slice, reads of the state and its snapshots see the removals.
                    scan.flush();
                    return false;
                }
            }
            close();
            return true;
        }

        @Override
        public void close() throws Exception {
            scan.close();
        }
    }

    /**
     * The current key's rows in the order they were added, each removed from the buffer when the
     * iterator returns it. The iterator stays usable when other keys are set in between; the caller
     * sets this key again before it calls it. Rows added after this call may or may not be
     * returned: take again for those it did not return.
     *
     * @param rowsAddedSince whether rows of the key were added after this call: a key's only row
     *     then leaves by its own entry, else with the key's whole map, which on the heap is one
     *     lookup in the state table instead of two
     */
    private Iterator<RowData> takeRowsOfKey(BooleanSupplier rowsAddedSince) throws Exception {
        if (iteratesInOrder) {
            return new RemovingIterator(rows.iterator(), true);
        }
        // A hash map iterates in no order, and fails when rows are added while it runs: take the
        // entries out of it, which on the heap are only references, and sort them.
        Iterator<Map.Entry<Long, RowData>> ofState = rows.entries().iterator();
        if (!ofState.hasNext()) {
            return Collections.emptyIterator();
        }
        Map.Entry<Long, RowData> first = ofState.next();
        if (!ofState.hasNext()) {
            // Most keys of a large buffer hold one row.
            return new OnlyRowIterator(first.getKey(), first.getValue(), rowsAddedSince);
        }
        List<Map.Entry<Long, RowData>> entries = new ArrayList<>();
        entries.add(Map.entry(first.getKey(), first.getValue()));
        while (ofState.hasNext()) {
            Map.Entry<Long, RowData> entry = ofState.next();
            entries.add(Map.entry(entry.getKey(), entry.getValue()));
        }
        entries.sort(Map.Entry.comparingByKey(Comparator.naturalOrder()));
        return new RemovingIterator(entries.iterator(), false);
    }

    /**
     * Drains key by key, in the order the state backend lists the keys with buffered rows when the
     * drain starts. A key counts one row of the budget on top of its rows. A key holds rows while
     * it drains and while the state has rows of it: a key's rows leave the state only as they are
     * joined, so one that the drain has not reached has all of its rows there.
     */
    private final class KeyedDrain implements StagedProbeDrain.StateDrain {

        /** The keys with buffered probe rows that the drain has not started on. */
        private final Iterator<Object> keysToDrain;

        @Nullable private Object drainingKey;
        @Nullable private Iterator<RowData> drainingRows;

        /** Whether probe rows were buffered for the draining key after its rows were taken. */
        private boolean drainingKeyGrew;

        private final BooleanSupplier grewSinceTaken = () -> drainingKeyGrew;

        KeyedDrain() {
            keysToDrain =
                    KeyedStateKeys.keysOf(backend, LateralSnapshotJoinStateNames.PROBE_BUFFER)
                            .iterator();
        }

        @Override
        public void close() {}

        @Override
        public boolean holdsCurrentKey() throws Exception {
            return keys.getCurrentKey().equals(drainingKey) || !rows.isEmpty();
        }

        @Override
        public void add(RowData probeRow) throws Exception {
            putIntoState(probeRow);
            if (keys.getCurrentKey().equals(drainingKey)) {
                drainingKeyGrew = true;
            }
        }

        @Override
        public boolean drain(long budget, long nanos, DrainedRows joiner) throws Exception {
            long start = System.nanoTime();
            long spent = 0;
            while (true) {
                boolean sameKey = drainingRows != null;
                if (drainingRows == null) {
                    if (!keysToDrain.hasNext()) {
                        return true;
                    }
                    drainingKey = keysToDrain.next();
                    keys.setCurrentKey(drainingKey);
                    drainingRows = takeRowsOfKey(grewSinceTaken);
                    drainingKeyGrew = false;
                    spent++;
                } else {
                    keys.setCurrentKey(drainingKey);
                }
                while (drainingRows.hasNext()) {
                    spent += joiner.join(drainingRows.next(), (RowData) drainingKey, sameKey);
                    sameKey = true;
                    if (spent >= budget || System.nanoTime() - start >= nanos) {
                        return false;
                    }
                }
                if (drainingKeyGrew) {
                    // Rows of this key came while it drained: they follow the others.
                    drainingRows = takeRowsOfKey(grewSinceTaken);
                    drainingKeyGrew = false;
                } else {
                    drainingKey = null;
                    drainingRows = null;
                }
                if (spent >= budget || System.nanoTime() - start >= nanos) {
                    return false;
                }
            }
        }
    }

    /** Returns the only row a key held when it was taken, and removes it from the state. */
    private final class OnlyRowIterator implements Iterator<RowData> {
        private final long sequenceNumber;
        private final BooleanSupplier rowsAddedSince;
        @Nullable private RowData row;

        OnlyRowIterator(long sequenceNumber, RowData row, BooleanSupplier rowsAddedSince) {
            this.sequenceNumber = sequenceNumber;
            this.row = row;
            this.rowsAddedSince = rowsAddedSince;
        }

        @Override
        public boolean hasNext() {
            return row != null;
        }

        @Override
        public RowData next() {
            if (row == null) {
                throw new NoSuchElementException();
            }
            RowData taken = row;
            row = null;
            try {
                if (rowsAddedSince.getAsBoolean()) {
                    rows.remove(sequenceNumber);
                } else {
                    rows.clear();
                }
            } catch (Exception e) {
                throw new IllegalStateException("Could not remove a drained probe row.", e);
            }
            return taken;
        }
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
