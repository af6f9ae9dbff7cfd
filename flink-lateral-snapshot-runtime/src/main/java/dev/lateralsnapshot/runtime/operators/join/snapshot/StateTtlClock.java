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
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;
import org.apache.flink.table.data.binary.BinaryRowData;

import javax.annotation.Nullable;

/**
 * The clock of the state TTL and, per build key, the time of the last access to it: by a probe row
 * that found build rows, or by a build change, as reads and writes both refresh a key in Flink's
 * state TTL. The operator sets the key before every call and evicts the key's build rows when
 * {@link #expire} says so.
 *
 * <p>The clock is processing time without the time the job was not running: it resumes at the
 * reading the restored snapshot took, so that a stop longer than the TTL, with no probe row to
 * touch any key, does not evict the whole build side at the restore.
 *
 * <p>Time is cut into windows of a tenth of the TTL. An access makes the kept time at least the end
 * of its window, written only when the kept time is earlier: a key that every probe row touches is
 * written at most once per window rather than once per row, and the kept time is never before the
 * last access. A key is thus evicted between the TTL and 1.1 times the TTL after its last access,
 * never earlier. The state keeps the name it had when only probe rows refreshed a key.
 *
 * <p>Once a key's kept time covers the current window, further accesses in that window change
 * nothing; the clock remembers such keys, so that an access to one of them reads no state (a second
 * state read per probe row, a RocksDB {@code get}, was most of what a TTL cost). On the heap
 * backend it marks the key with the window in the index of the build rows, whose lookup of the key
 * the probe row has just made ({@link IndexedValueState#stamp}); a key that loses its rows loses
 * the mark. Otherwise it keeps the keys in a set of its own, up to {@link #MAX_REFRESHED_KEYS} per
 * window, forgotten when the window ends; keys past the bound read their kept time as before. A key
 * that expires is never among them: its kept time is a TTL or more before now, where a refreshed
 * key's reaches past the window. Nor is a key that starts its clock: it does so only without a
 * clock, or at the flip, before any access.
 */
final class StateTtlClock {

    static final String CLOCK_STATE = "state-ttl-clock";
    static final String LAST_PROBE_ACCESS_STATE = "last-probe-access";

    /** The windows of the kept access times are the TTL divided by this. */
    static final long ACCESS_PRECISION_DIVISOR = 10;

    /** At most this many keys are remembered as refreshed for the current window. */
    static final int MAX_REFRESHED_KEYS = 1 << 16;

    private final long ttl;
    private final long accessPrecision;
    private final ProcessingTimeService processingTime;
    private final UnionLongState readings;

    /** Processing time minus TTL time: the time the job did not run since its first start. */
    private final long offset;

    /** Per key: a time at or after its last access; null when the key's clock does not run. */
    private ValueState<Long> lastAccess;

    private InternalTimerService<VoidNamespace> timers;

    private KeyContext keys;

    /**
     * Keys whose kept time reaches the end of {@link #refreshedWindow}; looked up by every probe
     * row that finds build rows, so by the keys' bytes rather than through a {@code HashSet}'s
     * nodes and key rows (see {@link BinaryKeySet}).
     */
    private final BinaryKeySet refreshedKeys = new BinaryKeySet();

    private long refreshedWindow = Long.MIN_VALUE;

    /** The index of the build rows, whose stamps mark the refreshed keys; null for the set. */
    @Nullable private IndexedValueState<?> refreshedStamps;

    /** Called from the operator's {@code initializeState}, where the operator state is. */
    StateTtlClock(long ttl, OperatorStateStore operatorState, ProcessingTimeService processingTime)
            throws Exception {
        this.ttl = ttl;
        this.accessPrecision = ttl / ACCESS_PRECISION_DIVISOR;
        this.processingTime = processingTime;
        this.readings = new UnionLongState(operatorState, CLOCK_STATE);
        long latestReading = readings.max(Long.MIN_VALUE);
        this.offset =
                latestReading == Long.MIN_VALUE
                        ? 0
                        : processingTime.getCurrentProcessingTime() - latestReading;
    }

    /**
     * Called from the operator's {@code open}, with the timers whose firing calls expire, the
     * operator, which knows the current key, and the index of the build rows, when it has stamps.
     */
    void open(
            KeyedStateStore store,
            InternalTimerService<VoidNamespace> timers,
            KeyContext keys,
            @Nullable IndexedValueState<?> buildRows) {
        this.lastAccess =
                store.getState(new ValueStateDescriptor<>(LAST_PROBE_ACCESS_STATE, Types.LONG));
        this.timers = timers;
        this.keys = keys;
        this.refreshedStamps = buildRows;
    }

    void snapshotState() throws Exception {
        readings.update(now());
    }

    /** Whether the current key's clock runs: it was started and has not expired since. */
    boolean isRunning() throws Exception {
        return lastAccess.value() != null;
    }

    /** Starts the current key's clock as if it was accessed now. */
    void start() throws Exception {
        long now = now();
        lastAccess.update(now);
        registerTimer(now + ttl);
    }

    /**
     * The current key was accessed now; nothing happens when its clock does not run. The timer
     * already set sees the later access.
     */
    void touch() throws Exception {
        long now = now();
        if (accessPrecision == 0) {
            // A TTL under ten milliseconds has no windows: every later access is written.
            Long kept = lastAccess.value();
            if (kept != null && now > kept) {
                lastAccess.update(now);
            }
            return;
        }
        long window = Math.floorDiv(now, accessPrecision);
        if (refreshedStamps != null) {
            if (refreshedStamps.stamp() == window) {
                return;
            }
            if (refresh(window)) {
                refreshedStamps.setStamp(window);
            }
            return;
        }
        if (window != refreshedWindow) {
            refreshedKeys.clear();
            refreshedWindow = window;
        }
        // The planner's key selectors make binary rows, and state restores them as such.
        BinaryRowData key = (BinaryRowData) keys.getCurrentKey();
        if (refreshedKeys.contains(key)) {
            return;
        }
        if (refresh(window) && refreshedKeys.size() < MAX_REFRESHED_KEYS) {
            refreshedKeys.add(key);
        }
    }

    /**
     * Makes the current key's kept time reach the end of the window, when its clock runs; returns
     * whether it runs.
     */
    private boolean refresh(long window) throws Exception {
        Long kept = lastAccess.value();
        if (kept == null) {
            return false;
        }
        long windowEnd = (window + 1) * accessPrecision;
        if (kept < windowEnd) {
            lastAccess.update(windowEnd);
        }
        return true;
    }

    /**
     * Whether the current key expired, called when its timer fires. An expired key's clock stops; a
     * key accessed since gets a timer for its new expiry instead.
     */
    boolean expire() throws Exception {
        Long kept = lastAccess.value();
        if (kept == null) {
            return false;
        }
        // Timers restored from a snapshot fire at once: they were set on the clock of the run
        // that took it. This clock tells whether the key really expired.
        long expiry = kept + ttl;
        if (expiry > now()) {
            registerTimer(expiry);
            return false;
        }
        lastAccess.clear();
        return true;
    }

    private long now() {
        return processingTime.getCurrentProcessingTime() - offset;
    }

    private void registerTimer(long ttlTime) {
        timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, ttlTime + offset);
    }
}
