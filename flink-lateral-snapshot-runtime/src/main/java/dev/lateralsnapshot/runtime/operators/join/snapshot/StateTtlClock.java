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
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;

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
 * <p>An access is written only when it is later than the time already kept, and then as its time
 * plus a tenth of the TTL: a key that every probe row touches is written at most once per tenth of
 * the TTL rather than once per row, and the kept time is never before the last access. A key is
 * thus evicted between the TTL and 1.1 times the TTL after its last access, never earlier. The
 * state keeps the name it had when only probe rows refreshed a key.
 */
final class StateTtlClock {

    static final String CLOCK_STATE = "state-ttl-clock";
    static final String LAST_PROBE_ACCESS_STATE = "last-probe-access";

    /** The kept time of an access runs ahead of it by the TTL divided by this. */
    static final long ACCESS_PRECISION_DIVISOR = 10;

    private final long ttl;
    private final long accessPrecision;
    private final ProcessingTimeService processingTime;
    private final UnionLongState readings;

    /** Processing time minus TTL time: the time the job did not run since its first start. */
    private final long offset;

    /** Per key: a time at or after its last access; null when the key's clock does not run. */
    private ValueState<Long> lastAccess;

    private InternalTimerService<VoidNamespace> timers;

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

    /** Called from the operator's {@code open}, with the timers whose firing calls expire. */
    void open(KeyedStateStore store, InternalTimerService<VoidNamespace> timers) {
        this.lastAccess =
                store.getState(new ValueStateDescriptor<>(LAST_PROBE_ACCESS_STATE, Types.LONG));
        this.timers = timers;
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
        Long kept = lastAccess.value();
        if (kept == null) {
            return;
        }
        long now = now();
        if (now > kept) {
            lastAccess.update(now + accessPrecision);
        }
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
