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

import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateNames;

import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.internal.InternalListState;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The build side's -U rows that wait for their +U; the operator decides when they are held and let
 * go (see {@code BuildChangeOrder}) and sets the key before every call.
 *
 * <p>A -U is followed by its +U, at most a network buffer of other keys' changes later, so rows are
 * held for microseconds, and few keys hold rows at a time. They are held on the heap, and written
 * to keyed state only by {@link #writeToState}, which the operator calls when it takes a snapshot:
 * a -U and +U pair between two snapshots costs no state access at all (on RocksDB it cost an
 * append, a put, a get and two deletes, more than the probe row's read). Rows that a snapshot
 * wrote, or a restore brought back, are held on the heap too, and removed from the state when
 * taken. The state and the heap never share a row object: the operator changes the kind of a row it
 * applies, and the heap backend may still be writing a snapshot of the state's objects.
 *
 * <p>In keyed state, per key, the rows are namespaced by their own time, like the pending build
 * changes, and a map from each of those times to the watermark that lets its rows go alone tells
 * which times hold rows.
 */
final class HeldUpdateBefores {

    private final KeyedStateBackend<Object> backend;
    private final InternalListState<Object, Long, RowData> rows;

    /** Per key: the times that hold -U rows, each with the watermark that lets them go alone. */
    private final MapState<Long, Long> releaseTimes;

    /**
     * Every key that holds rows, with its times in the order they were first held. Keys are
     * compared with {@code equals}, as the heap backend compares them; they are the key selector's
     * binary rows and a restore's, which are binary too. A key is copied when kept: the backend's
     * current key is the caller's object.
     */
    private final Map<Object, Map<Long, HeldTime>> held = new HashMap<>();

    /** Whether some held rows are not in keyed state. */
    private boolean unwritten;

    private final TypeSerializer<Object> keySerializer;
    private final RowDataSerializer rowSerializer;

    /** The rows of one key and time, and the watermark that lets them go alone. */
    private static final class HeldTime {
        final List<RowData> rows = new ArrayList<>(1);
        long releaseAt;

        /** Whether the keyed state holds these rows and the release time. */
        boolean inState;

        HeldTime(long releaseAt, boolean inState) {
            this.releaseAt = releaseAt;
            this.inState = inState;
        }
    }

    @SuppressWarnings("unchecked")
    HeldUpdateBefores(
            KeyedStateBackend<Object> backend,
            KeyedStateStore store,
            InternalTypeInfo<RowData> buildType)
            throws Exception {
        this.backend = backend;
        this.keySerializer = backend.getKeySerializer();
        this.rowSerializer = buildType.toRowSerializer();
        this.rows =
                (InternalListState<Object, Long, RowData>)
                        backend.getOrCreateKeyedState(
                                LongSerializer.INSTANCE,
                                new ListStateDescriptor<>(
                                        LateralSnapshotJoinStateNames.HELD_UPDATE_BEFORE,
                                        buildType));
        this.releaseTimes =
                store.getMapState(
                        new MapStateDescriptor<>(
                                LateralSnapshotJoinStateNames.HELD_UPDATE_BEFORE_TIMES,
                                Types.LONG,
                                Types.LONG));
    }

    /** Reads the rows a restore brought back onto the heap; they stay in the state until taken. */
    void readRestored() throws Exception {
        List<Object> keys;
        try (Stream<Object> stream =
                backend.getKeys(
                        LateralSnapshotJoinStateNames.HELD_UPDATE_BEFORE_TIMES,
                        VoidNamespace.INSTANCE)) {
            keys = stream.collect(Collectors.toList());
        }
        for (Object key : keys) {
            backend.setCurrentKey(key);
            Map<Long, HeldTime> times = new LinkedHashMap<>();
            for (Map.Entry<Long, Long> entry : releaseTimes.entries()) {
                HeldTime heldTime = new HeldTime(entry.getValue(), true);
                rows.setCurrentNamespace(entry.getKey());
                Iterable<RowData> restored = rows.get();
                if (restored != null) {
                    restored.forEach(row -> heldTime.rows.add(rowSerializer.copy(row)));
                }
                times.put(entry.getKey(), heldTime);
            }
            if (!times.isEmpty()) {
                held.put(keySerializer.copy(key), times);
            }
        }
    }

    /**
     * Writes the held rows that are not in keyed state yet into it; called when the operator takes
     * a snapshot, before the state backend takes its own.
     */
    void writeToState() throws Exception {
        if (!unwritten) {
            return;
        }
        Object currentKey = backend.getCurrentKey();
        for (Map.Entry<Object, Map<Long, HeldTime>> keyTimes : held.entrySet()) {
            for (Map.Entry<Long, HeldTime> timeRows : keyTimes.getValue().entrySet()) {
                HeldTime heldTime = timeRows.getValue();
                if (!heldTime.inState) {
                    backend.setCurrentKey(keyTimes.getKey());
                    rows.setCurrentNamespace(timeRows.getKey());
                    List<RowData> copies = new ArrayList<>(heldTime.rows.size());
                    heldTime.rows.forEach(row -> copies.add(rowSerializer.copy(row)));
                    rows.update(copies);
                    releaseTimes.put(timeRows.getKey(), heldTime.releaseAt);
                    heldTime.inState = true;
                }
            }
        }
        unwritten = false;
        if (currentKey != null) {
            backend.setCurrentKey(currentKey);
        }
    }

    /**
     * Holds a -U of the current key under its time. Its time lets it go alone once the watermark
     * reaches {@code releaseAt}; of several for one time, the latest counts.
     */
    void hold(long time, long releaseAt, RowData updateBefore) throws Exception {
        Object key = backend.getCurrentKey();
        Map<Long, HeldTime> times = held.get(key);
        if (times == null) {
            times = new LinkedHashMap<>();
            held.put(keySerializer.copy(key), times);
        }
        HeldTime heldTime = times.get(time);
        if (heldTime == null) {
            heldTime = new HeldTime(releaseAt, false);
            times.put(time, heldTime);
        }
        // Copied: the caller may reuse the row, and the heap keeps it past this call.
        RowData row = rowSerializer.copy(updateBefore);
        heldTime.rows.add(row);
        heldTime.releaseAt = Math.max(heldTime.releaseAt, releaseAt);
        if (heldTime.inState) {
            // The state already holds this time's earlier rows: it gets this one now.
            rows.setCurrentNamespace(time);
            rows.add(rowSerializer.copy(row));
            releaseTimes.put(time, heldTime.releaseAt);
        } else {
            unwritten = true;
        }
    }

    /** Removes and returns the held rows of the current key, in arrival order per time. */
    List<RowData> takeAll() throws Exception {
        if (held.isEmpty()) {
            return Collections.emptyList();
        }
        Map<Long, HeldTime> times = held.remove(backend.getCurrentKey());
        if (times == null) {
            return Collections.emptyList();
        }
        List<RowData> taken = new ArrayList<>();
        for (Map.Entry<Long, HeldTime> timeRows : times.entrySet()) {
            take(timeRows.getKey(), timeRows.getValue(), taken);
        }
        // The timers at the rows' own times stay: other changes of those times may need them.
        return taken;
    }

    /**
     * Removes and returns the held rows of the current key and the time once the watermark has
     * reached the one that lets them go alone; none before.
     */
    List<RowData> takeReleased(long time, long watermark) throws Exception {
        if (held.isEmpty()) {
            return Collections.emptyList();
        }
        Object key = backend.getCurrentKey();
        Map<Long, HeldTime> times = held.get(key);
        HeldTime heldTime = times == null ? null : times.get(time);
        if (heldTime == null || heldTime.releaseAt > watermark) {
            return Collections.emptyList();
        }
        times.remove(time);
        if (times.isEmpty()) {
            held.remove(key);
        }
        List<RowData> taken = new ArrayList<>();
        take(time, heldTime, taken);
        return taken;
    }

    /** Moves the rows of the current key and one time to the list, out of the state if there. */
    private void take(long time, HeldTime heldTime, List<RowData> taken) throws Exception {
        taken.addAll(heldTime.rows);
        if (heldTime.inState) {
            rows.setCurrentNamespace(time);
            rows.clear();
            releaseTimes.remove(time);
        }
    }
}
