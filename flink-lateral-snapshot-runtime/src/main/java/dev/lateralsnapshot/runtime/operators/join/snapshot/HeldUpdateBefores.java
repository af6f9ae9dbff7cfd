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
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.internal.InternalListState;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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
 * <p>Most of the time at most one key holds -U rows, all of one time: a -U is followed by its +U.
 * While that is so, the key and the time are kept in fields, so that a change of any key finds its
 * held rows without iterating the map state, which on RocksDB seeks over the tombstones of every
 * time released before. The fields are unknown after a restore, and once -U rows of several keys or
 * times are held; then the map state is read.
 */
final class HeldUpdateBefores {

    static final String ROWS_STATE = "held-update-before";
    static final String RELEASE_TIMES_STATE = "held-update-before-times";

    /** What comparing the current key with the sole key tells. */
    private enum KeyMatch {
        SOLE_KEY,
        OTHER_KEY,
        UNKNOWN
    }

    private final KeyedStateBackend<Object> backend;
    private final InternalListState<Object, Long, RowData> rows;

    /** Per key: the times that hold -U rows, each with the watermark that lets them go alone. */
    private final MapState<Long, Long> releaseTimes;

    /** The held rows of all keys of the subtask. */
    private long count;

    /**
     * When not null, every held row of the subtask belongs to this key and has the time {@link
     * #soleTime}.
     */
    @Nullable private Object soleKey;

    private long soleTime;

    @SuppressWarnings("unchecked")
    HeldUpdateBefores(
            KeyedStateBackend<Object> backend,
            KeyedStateStore store,
            InternalTypeInfo<RowData> buildType)
            throws Exception {
        this.backend = backend;
        this.rows =
                (InternalListState<Object, Long, RowData>)
                        backend.getOrCreateKeyedState(
                                LongSerializer.INSTANCE,
                                new ListStateDescriptor<>(ROWS_STATE, buildType));
        this.releaseTimes =
                store.getMapState(
                        new MapStateDescriptor<>(RELEASE_TIMES_STATE, Types.LONG, Types.LONG));
    }

    /** Counts the rows a restore brought back, which the fields then know nothing about. */
    void countRestored() throws Exception {
        List<Object> keys;
        try (Stream<Object> stream = backend.getKeys(RELEASE_TIMES_STATE, VoidNamespace.INSTANCE)) {
            keys = stream.collect(Collectors.toList());
        }
        for (Object key : keys) {
            backend.setCurrentKey(key);
            for (Long time : releaseTimes.keys()) {
                rows.setCurrentNamespace(time);
                Iterable<RowData> held = rows.get();
                if (held != null) {
                    for (RowData ignored : held) {
                        count++;
                    }
                }
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
        Long earlierReleaseAt = releaseTimes.get(time);
        if (earlierReleaseAt == null || earlierReleaseAt < releaseAt) {
            releaseTimes.put(time, releaseAt);
        }
        Object key = backend.getCurrentKey();
        if (count == 0) {
            soleKey = key;
            soleTime = time;
        } else if (soleKey != null && (soleTime != time || match(key) != KeyMatch.SOLE_KEY)) {
            soleKey = null;
        }
        count++;
    }

    /** Removes and returns the held rows of the current key, in arrival order per time. */
    List<RowData> takeAll() throws Exception {
        if (surelyHoldsNone(null)) {
            return Collections.emptyList();
        }
        List<RowData> taken = new ArrayList<>();
        if (soleKey != null) {
            // Every held row of the subtask has the sole time, so the current key's have it too:
            // no map iteration.
            takeRows(soleTime, taken);
            releaseTimes.remove(soleTime);
            soleKey = null;
            return taken;
        }
        for (Long time : releaseTimes.keys()) {
            takeRows(time, taken);
        }
        releaseTimes.clear();
        // The timers at the rows' own times stay: other changes of those times may need them.
        return taken;
    }

    /**
     * Removes and returns the held rows of the current key and the time once the watermark has
     * reached the one that lets them go alone; none before.
     */
    List<RowData> takeReleased(long time, long watermark) throws Exception {
        if (surelyHoldsNone(time)) {
            return Collections.emptyList();
        }
        Long releaseAt = releaseTimes.get(time);
        if (releaseAt == null || releaseAt > watermark) {
            return Collections.emptyList();
        }
        List<RowData> taken = new ArrayList<>();
        takeRows(time, taken);
        releaseTimes.remove(time);
        return taken;
    }

    /** Moves the current key's rows of one time from state to the list. */
    private void takeRows(long time, List<RowData> taken) throws Exception {
        rows.setCurrentNamespace(time);
        Iterable<RowData> held = rows.get();
        if (held != null) {
            for (RowData row : held) {
                taken.add(row);
                count--;
            }
        }
        rows.clear();
    }

    /**
     * Whether the current key surely holds no row of the time (of any time when null), known from
     * the fields alone.
     */
    private boolean surelyHoldsNone(@Nullable Long time) {
        if (count == 0) {
            return true;
        }
        if (soleKey == null) {
            return false;
        }
        KeyMatch match = match(backend.getCurrentKey());
        return match == KeyMatch.OTHER_KEY
                || (match == KeyMatch.SOLE_KEY && time != null && time != soleTime);
    }

    /**
     * Compares a key with the sole key, which is set. A key of another class may be the same key
     * and still not equal it (a generic row and a binary row of the same fields), so it tells
     * nothing.
     */
    private KeyMatch match(Object key) {
        if (soleKey.getClass() != key.getClass()) {
            return KeyMatch.UNKNOWN;
        }
        return soleKey.equals(key) ? KeyMatch.SOLE_KEY : KeyMatch.OTHER_KEY;
    }
}
