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

import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildKeyTtl;
import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinStateContext;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateNames;
import dev.lateralsnapshot.runtime.operators.join.snapshot.UnionLongState;
import dev.lateralsnapshot.runtime.operators.join.snapshot.index.BinaryKeySet;

import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;
import org.apache.flink.table.data.binary.BinaryRowData;

import javax.annotation.Nullable;

/**
 * The clock of the state TTL and, per build key, the time of the last access to it: by a probe row
 * that found build rows, or by a build change, as reads and writes both refresh a key in Flink's
 * state TTL. The caller sets the key before every call; a key whose clock expires when its timer
 * fires is evicted through {@link JoinStateContext#evictCurrentKey}.
 *
 * <p>The clock is processing time without the time the job was not running: it resumes at the
 * reading the restored snapshot took, so that a stop longer than the TTL, with no probe row to
 * touch any key, does not evict the whole build side at the restore.
 *
 * <p>Time is cut into windows of a tenth of the TTL. An access makes the kept time at least the end
 * of its window, written only when the kept time is earlier: a key that every probe row touches is
 * written at most once per window rather than once per row, and the kept time is never before the
 * last access. A key is thus evicted between the TTL and 1.1 times the TTL after its last access,
 * never earlier.
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
final class StateTtlClock implements BuildKeyTtl, Triggerable<Object, VoidNamespace> {

    /** At most this many keys are remembered as refreshed for the current window. */
    static final int MAX_REFRESHED_KEYS = 1 << 16;

    private final long ttl;
    private final long accessPrecision;
    private final UnionLongState readings;

    /** The latest reading of the clock in the restored snapshot; Long.MIN_VALUE for none. */
    private final long restoredReading;

    /** Processing time minus TTL time: the time the job did not run since its first start. */
    private long offset;

    private ProcessingTimeService processingTime;

    private JoinStateContext context;

    /** Per key: a time at or after its last access; null when the key's clock does not run. */
    private ValueState<Long> lastAccess;

    private InternalTimerService<VoidNamespace> timers;

    private KeyedBuildSideState buildSide;

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
    StateTtlClock(long ttl, OperatorStateStore operatorState) throws Exception {
        this.ttl = ttl;
        this.accessPrecision = ttl / ACCESS_PRECISION_DIVISOR;
        this.readings =
                new UnionLongState(operatorState, LateralSnapshotJoinStateNames.STATE_TTL_CLOCK);
        this.restoredReading = readings.max(Long.MIN_VALUE);
    }

    /**
     * Called from the operator's {@code open}, with the build side whose keys expire: its index,
     * when it has one, keeps the stamps that mark refreshed keys.
     */
    void open(JoinStateContext context, KeyedBuildSideState buildSide) {
        this.context = context;
        this.processingTime = context.processingTimeService();
        this.offset =
                restoredReading == Long.MIN_VALUE
                        ? 0
                        : processingTime.getCurrentProcessingTime() - restoredReading;
        this.lastAccess =
                context.keyedStateStore()
                        .getState(
                                new ValueStateDescriptor<>(
                                        LateralSnapshotJoinStateNames.LAST_PROBE_ACCESS,
                                        Types.LONG));
        this.timers =
                context.timerService(
                        LateralSnapshotJoinStateNames.STATE_TTL_TIMERS,
                        VoidNamespaceSerializer.INSTANCE,
                        this);
        this.buildSide = buildSide;
        this.refreshedStamps = buildSide.index();
    }

    void snapshotState() throws Exception {
        readings.update(now());
    }

    @Override
    public boolean isRunning() throws Exception {
        return lastAccess.value() != null;
    }

    @Override
    public void start() throws Exception {
        long now = now();
        lastAccess.update(now);
        registerTimer(now + ttl);
    }

    /** The timer already set sees the later access. */
    @Override
    public void touch() throws Exception {
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
        BinaryRowData key = (BinaryRowData) context.keyContext().getCurrentKey();
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

    @Override
    public void startAll() throws Exception {
        KeyContext keys = context.keyContext();
        for (Object key :
                KeyedStateKeys.keysOf(context.keyedStateBackend(), buildSide.stateName())) {
            keys.setCurrentKey(key);
            start();
        }
    }

    /**
     * Starts the clock of every key with build rows whose clock does not run: keys restored from a
     * subtask that had not flipped. They get it at the restore rather than when the probe rows are
     * drained, so that a checkpoint taken in between, which restores with every subtask in the join
     * phase, keeps it.
     */
    void startStoppedClocks() throws Exception {
        KeyContext keys = context.keyContext();
        for (Object key :
                KeyedStateKeys.keysOf(context.keyedStateBackend(), buildSide.stateName())) {
            keys.setCurrentKey(key);
            if (!isRunning()) {
                start();
            }
        }
    }

    /** Evicts the current key's build rows when its clock expired. */
    @Override
    public void onProcessingTime(InternalTimer<Object, VoidNamespace> timer) throws Exception {
        if (expire()) {
            context.evictCurrentKey();
        }
    }

    @Override
    public void onEventTime(InternalTimer<Object, VoidNamespace> timer) {
        throw new IllegalStateException("State TTL runs on processing time.");
    }

    /**
     * Whether the current key expired, called when its timer fires. An expired key's clock stops; a
     * key accessed since gets a timer for its new expiry instead.
     */
    private boolean expire() throws Exception {
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
