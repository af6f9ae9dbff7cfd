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

import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.internal.InternalListState;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.table.data.RowData;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The build changes that wait for the build watermark to pass their time, per key and time, in
 * arrival order; {@link KeyedBuildChanges} sets the key before every call.
 *
 * <p>A change waits about one watermark interval, so few wait at a time and most never see a
 * snapshot. They wait on the heap, and go into keyed state only when the operator takes a snapshot
 * ({@link #writeToState}), or when more than {@link #MAX_HEAP_ROWS} wait (a build side loaded under
 * a watermark far behind its rows): a change between two snapshots then costs no state access of
 * its own (on RocksDB it cost an append, and a get and a delete when taken). While the state holds
 * none, taking reads no state either.
 *
 * <p>The changes in keyed state are released by an event-time timer per key and time, which a
 * restore brings back with them; those on the heap by an index of their times ({@link
 * #hasHeapRowsUpTo}, {@link #releaseHeap}), which costs no timer: registering and firing one per
 * key and time was a fifth of the join's task time in a load on RocksDB ("The waiting build changes
 * without a timer each" in {@code docs/benchmarks-notes.md}).
 *
 * <p>The rows of a key and time that are in the state arrived before those on the heap: a key and
 * time that waits on the heap gets its later rows there too, and when it goes into the state, its
 * rows are appended behind the ones already there. The heap keeps the rows it is given, as the heap
 * state backend does; they leave the heap when they go into the state, so the two never share a
 * row.
 */
final class PendingBuildChanges {

    /** Past this many rows waiting on the heap, further rows wait in keyed state. */
    static final int MAX_HEAP_ROWS = 100_000;

    private final KeyedStateBackend<Object> backend;

    /** Per key and namespaced by the change time, like the timers. */
    private final InternalListState<Object, Long, RowData> state;

    private final String stateName;

    private final int maxHeapRows;

    private final Map<KeyAndTime, List<RowData>> heap = new HashMap<>();

    /**
     * The keys and times on the heap, by time, in two parts: each time that came later than all
     * before it in a queue, the others in a sorted map. A changelog read in the order of its times,
     * as a topic of a table's changes holds it, then costs an append per time instead of an
     * insertion into a tree. A time may be in both parts; the order of the keys of one time changes
     * nothing, since a key's changes are applied to that key's state alone. A key and time that a
     * timer took, or that went into the state, stays listed until its time is released.
     */
    private final ArrayDeque<TimeKeys> ascendingTimes = new ArrayDeque<>();

    private final TreeMap<Long, List<KeyAndTime>> otherTimes = new TreeMap<>();

    private int heapRows;

    /** The rows in the keyed state; exact, so that at 0 taking reads no state. */
    private long stateRows;

    /**
     * A key and a change time. Keys are compared with {@code equals}, as the heap backend and its
     * timers compare them; they are the key selector's binary rows, and a restore's. The hash is
     * taken once: a binary row hashes all its bytes on every call, and a change is looked up, put
     * and removed by it.
     */
    private static final class KeyAndTime {
        final Object key;
        final long time;
        private final int hash;

        KeyAndTime(Object key, long time) {
            this.key = key;
            this.time = time;
            this.hash = 31 * key.hashCode() + Long.hashCode(time);
        }

        @Override
        public boolean equals(Object other) {
            if (!(other instanceof KeyAndTime)) {
                return false;
            }
            KeyAndTime that = (KeyAndTime) other;
            return hash == that.hash && time == that.time && key.equals(that.key);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** A time in the queue of ascending times, and its keys. */
    private static final class TimeKeys {
        final long time;
        final List<KeyAndTime> keys = new ArrayList<>(1);

        TimeKeys(long time) {
            this.time = time;
        }
    }

    PendingBuildChanges(
            KeyedStateBackend<Object> backend,
            InternalListState<Object, Long, RowData> state,
            String stateName) {
        this(backend, state, stateName, MAX_HEAP_ROWS);
    }

    /** With another bound of the rows on the heap, for tests. */
    PendingBuildChanges(
            KeyedStateBackend<Object> backend,
            InternalListState<Object, Long, RowData> state,
            String stateName,
            int maxHeapRows) {
        this.backend = backend;
        this.state = state;
        this.stateName = stateName;
        this.maxHeapRows = maxHeapRows;
    }

    /** Counts the rows a restore brought back into the state, which stay there until taken. */
    void readRestored() throws Exception {
        List<Tuple2<Object, Long>> keysAndTimes;
        try (Stream<Tuple2<Object, Long>> stream = backend.getKeysAndNamespaces(stateName)) {
            keysAndTimes = stream.collect(Collectors.toList());
        }
        for (Tuple2<Object, Long> keyAndTime : keysAndTimes) {
            backend.setCurrentKey(keyAndTime.f0);
            state.setCurrentNamespace(keyAndTime.f1);
            Iterable<RowData> rows = state.get();
            if (rows != null) {
                for (RowData ignored : rows) {
                    stateRows++;
                }
            }
        }
    }

    /**
     * Adds a change of the current key behind the others of its time; returns whether it waits in
     * keyed state, where a timer of the key and time must take it.
     */
    boolean add(long time, RowData change) throws Exception {
        KeyAndTime at = new KeyAndTime(backend.getCurrentKey(), time);
        if (heapRows < maxHeapRows) {
            List<RowData> rows = heap.get(at);
            if (rows == null) {
                rows = new ArrayList<>(2);
                heap.put(at, rows);
                listTime(at);
            }
            rows.add(change);
            heapRows++;
            return false;
        }
        List<RowData> rows = heap.remove(at);
        if (rows == null) {
            rows = new ArrayList<>(1);
        } else {
            heapRows -= rows.size();
        }
        rows.add(change);
        state.setCurrentNamespace(time);
        state.addAll(rows);
        stateRows += rows.size();
        return true;
    }

    private void listTime(KeyAndTime at) {
        TimeKeys last = ascendingTimes.peekLast();
        if (last == null || at.time > last.time) {
            last = new TimeKeys(at.time);
            ascendingTimes.addLast(last);
        } else if (at.time < last.time) {
            otherTimes.computeIfAbsent(at.time, ignored -> new ArrayList<>()).add(at);
            return;
        }
        last.keys.add(at);
    }

    /** Whether changes wait on the heap with a time up to this one. */
    boolean hasHeapRowsUpTo(long time) {
        return (!ascendingTimes.isEmpty() || !otherTimes.isEmpty()) && firstHeapTime() <= time;
    }

    /** The earliest time of the changes on the heap; call only when some wait there. */
    long firstHeapTime() {
        if (otherTimes.isEmpty()) {
            return ascendingTimes.getFirst().time;
        }
        long first = otherTimes.firstKey();
        return ascendingTimes.isEmpty() ? first : Math.min(first, ascendingTimes.getFirst().time);
    }

    /** Whether keyed state holds changes, which their timers release. */
    boolean hasRowsInState() {
        return stateRows > 0;
    }

    /**
     * Removes the changes on the heap of a time and gives them to the consumer, key by key, each
     * key's in arrival order.
     */
    void releaseHeap(long time, KeyRows consumer) throws Exception {
        List<KeyAndTime> others = otherTimes.isEmpty() ? null : otherTimes.remove(time);
        if (others != null) {
            release(others, consumer);
        }
        TimeKeys first = ascendingTimes.peekFirst();
        if (first != null && first.time == time) {
            ascendingTimes.removeFirst();
            release(first.keys, consumer);
        }
    }

    private void release(List<KeyAndTime> keysAndTimes, KeyRows consumer) throws Exception {
        for (KeyAndTime at : keysAndTimes) {
            List<RowData> rows = heap.remove(at);
            if (rows != null) {
                heapRows -= rows.size();
                consumer.accept(at.key, rows);
            }
        }
    }

    /** Takes the rows of one key. */
    @FunctionalInterface
    interface KeyRows {
        void accept(Object key, List<RowData> rows) throws Exception;
    }

    /** Removes and returns the changes of the current key and the time, in arrival order. */
    List<RowData> take(long time) throws Exception {
        List<RowData> onHeap =
                heap.isEmpty() ? null : heap.remove(new KeyAndTime(backend.getCurrentKey(), time));
        if (onHeap != null) {
            heapRows -= onHeap.size();
        }
        if (stateRows == 0) {
            return onHeap == null ? Collections.emptyList() : onHeap;
        }
        state.setCurrentNamespace(time);
        Iterable<RowData> inState = state.get();
        if (inState == null) {
            return onHeap == null ? Collections.emptyList() : onHeap;
        }
        List<RowData> taken = new ArrayList<>();
        inState.forEach(taken::add);
        state.clear();
        stateRows -= taken.size();
        if (onHeap != null) {
            taken.addAll(onHeap);
        }
        return taken;
    }

    /**
     * Moves the rows on the heap into keyed state, with a timer for every key and time that takes
     * them; called when the operator takes a snapshot, before the state backend takes its own.
     */
    void writeToState(InternalTimerService<Long> timers) throws Exception {
        if (heap.isEmpty()) {
            ascendingTimes.clear();
            otherTimes.clear();
            return;
        }
        Object currentKey = backend.getCurrentKey();
        for (Map.Entry<KeyAndTime, List<RowData>> entry : heap.entrySet()) {
            long time = entry.getKey().time;
            backend.setCurrentKey(entry.getKey().key);
            state.setCurrentNamespace(time);
            state.addAll(entry.getValue());
            stateRows += entry.getValue().size();
            timers.registerEventTimeTimer(time, time);
        }
        heap.clear();
        ascendingTimes.clear();
        otherTimes.clear();
        heapRows = 0;
        if (currentKey != null) {
            backend.setCurrentKey(currentKey);
        }
    }
}
