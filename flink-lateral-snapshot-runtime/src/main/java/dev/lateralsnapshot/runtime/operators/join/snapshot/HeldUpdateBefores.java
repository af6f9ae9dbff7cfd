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

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The build side's -U rows that wait for their +U, in keyed state; the operator decides when they
 * are held and let go (see {@link LateralSnapshotJoinOperator}) and sets the key before every call.
 *
 * <p>Per key, the rows are namespaced by their own time, like the pending build changes, so that
 * the timer of one time touches only the rows of that time; a map from each of those times to the
 * watermark that lets its rows go alone tells which times hold rows.
 *
 * <p>That map is also kept on the heap, for every key of the subtask that holds rows, and read from
 * there: every build change asks whether its key holds rows, and most keys hold none, so the answer
 * must cost no state read. Nor may taking a key's rows iterate the map state, which on RocksDB
 * opens an iterator and seeks over the tombstones of every time released before. Few keys hold rows
 * at a time (a -U is followed by its +U, at most a network buffer of other keys' changes later), so
 * the heap copy stays small; a restore rebuilds it from the state.
 */
final class HeldUpdateBefores {

    static final String ROWS_STATE = "held-update-before";
    static final String RELEASE_TIMES_STATE = "held-update-before-times";

    private final KeyedStateBackend<Object> backend;
    private final InternalListState<Object, Long, RowData> rows;

    /** Per key: the times that hold -U rows, each with the watermark that lets them go alone. */
    private final MapState<Long, Long> releaseTimes;

    /**
     * {@link #releaseTimes} of every key that holds rows, times in the order they were first held.
     * Keys are compared with {@code equals}, as the heap backend compares them, so that this finds
     * a key's rows exactly when that backend does; they are the key selector's binary rows and a
     * restore's, which are binary too. A key is copied when kept: the backend's current key is the
     * caller's object.
     */
    private final Map<Object, Map<Long, Long>> heldTimes = new HashMap<>();

    private final TypeSerializer<Object> keySerializer;

    @SuppressWarnings("unchecked")
    HeldUpdateBefores(
            KeyedStateBackend<Object> backend,
            KeyedStateStore store,
            InternalTypeInfo<RowData> buildType)
            throws Exception {
        this.backend = backend;
        this.keySerializer = backend.getKeySerializer();
        this.rows =
                (InternalListState<Object, Long, RowData>)
                        backend.getOrCreateKeyedState(
                                LongSerializer.INSTANCE,
                                new ListStateDescriptor<>(ROWS_STATE, buildType));
        this.releaseTimes =
                store.getMapState(
                        new MapStateDescriptor<>(RELEASE_TIMES_STATE, Types.LONG, Types.LONG));
    }

    /** Reads the times of the keys a restore brought back into the heap copy. */
    void indexRestored() throws Exception {
        List<Object> keys;
        try (Stream<Object> stream = backend.getKeys(RELEASE_TIMES_STATE, VoidNamespace.INSTANCE)) {
            keys = stream.collect(Collectors.toList());
        }
        for (Object key : keys) {
            backend.setCurrentKey(key);
            Map<Long, Long> times = new LinkedHashMap<>();
            for (Map.Entry<Long, Long> entry : releaseTimes.entries()) {
                times.put(entry.getKey(), entry.getValue());
            }
            if (!times.isEmpty()) {
                heldTimes.put(keySerializer.copy(key), times);
            }
        }
    }

    /**
     * Holds a -U of the current key under its time. Its time lets it go alone once the watermark
     * reaches {@code releaseAt}; of several for one time, the latest counts.
     */
    void hold(long time, long releaseAt, RowData updateBefore) throws Exception {
        rows.setCurrentNamespace(time);
        rows.add(updateBefore);
        Object key = backend.getCurrentKey();
        Map<Long, Long> times = heldTimes.get(key);
        if (times == null) {
            times = new LinkedHashMap<>();
            heldTimes.put(keySerializer.copy(key), times);
        }
        Long earlierReleaseAt = times.get(time);
        if (earlierReleaseAt == null || earlierReleaseAt < releaseAt) {
            times.put(time, releaseAt);
            releaseTimes.put(time, releaseAt);
        }
    }

    /** Removes and returns the held rows of the current key, in arrival order per time. */
    List<RowData> takeAll() throws Exception {
        if (heldTimes.isEmpty()) {
            return Collections.emptyList();
        }
        Map<Long, Long> times = heldTimes.remove(backend.getCurrentKey());
        if (times == null) {
            return Collections.emptyList();
        }
        List<RowData> taken = new ArrayList<>();
        for (Long time : times.keySet()) {
            takeRows(time, taken);
            releaseTimes.remove(time);
        }
        // The timers at the rows' own times stay: other changes of those times may need them.
        return taken;
    }

    /**
     * Removes and returns the held rows of the current key and the time once the watermark has
     * reached the one that lets them go alone; none before.
     */
    List<RowData> takeReleased(long time, long watermark) throws Exception {
        if (heldTimes.isEmpty()) {
            return Collections.emptyList();
        }
        Object key = backend.getCurrentKey();
        Map<Long, Long> times = heldTimes.get(key);
        Long releaseAt = times == null ? null : times.get(time);
        if (releaseAt == null || releaseAt > watermark) {
            return Collections.emptyList();
        }
        List<RowData> taken = new ArrayList<>();
        takeRows(time, taken);
        releaseTimes.remove(time);
        times.remove(time);
        if (times.isEmpty()) {
            heldTimes.remove(key);
        }
        return taken;
    }

    /** Moves the current key's rows of one time from state to the list. */
    private void takeRows(long time, List<RowData> taken) throws Exception {
        rows.setCurrentNamespace(time);
        Iterable<RowData> held = rows.get();
        if (held != null) {
            held.forEach(taken::add);
        }
        rows.clear();
    }
}
