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

import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildChangeBuffer;
import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinStateContext;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateNames;
import dev.lateralsnapshot.runtime.operators.join.snapshot.ReleasedBuildChanges;

import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.table.data.RowData;

import java.util.List;

/**
 * The pending build changes and held -U rows of the keyed join, released in time order with their
 * key current, which is the order the build side must see the changes in.
 *
 * <p>Event-time timers release the held -U rows and the pending changes in keyed state: one per key
 * and time, namespaced by the time, which fires when the build watermark reaches the time (or, for
 * held -U rows, the time that lets them go alone). The pending changes on the heap have no timer: a
 * watermark releases them time by time, and first advances the timers to each time while the state
 * holds changes, so that a key's changes in the state that are earlier go first. A held -U needs no
 * such care: it waits for changes of its key that arrive later, and every one of its key that
 * arrived earlier has an earlier time than the watermark that lets it go.
 */
final class KeyedBuildChanges implements BuildChangeBuffer, Triggerable<Object, Long> {

    private final PendingBuildChanges pending;
    private final HeldUpdateBefores held;
    private final JoinStateContext context;
    private final InternalTimerService<Long> timers;
    private final KeyContext keys;

    KeyedBuildChanges(
            PendingBuildChanges pending, HeldUpdateBefores held, JoinStateContext context) {
        this.pending = pending;
        this.held = held;
        this.context = context;
        this.keys = context.keyContext();
        this.timers =
                context.timerService(
                        LateralSnapshotJoinStateNames.BUILD_CHANGE_TIMERS,
                        LongSerializer.INSTANCE,
                        this);
    }

    @Override
    public void add(long time, RowData change) throws Exception {
        if (pending.add(time, change)) {
            timers.registerEventTimeTimer(time, time);
        }
    }

    @Override
    public void hold(long time, long releaseAt, RowData updateBefore) throws Exception {
        held.hold(time, releaseAt, updateBefore);
        timers.registerEventTimeTimer(time, releaseAt);
    }

    @Override
    public List<RowData> takeHeld() throws Exception {
        return held.takeAll();
    }

    @Override
    public void releaseUpTo(long time) throws Exception {
        ReleasedBuildChanges released = context.released();
        while (pending.hasHeapRowsUpTo(time)) {
            long heapTime = pending.firstHeapTime();
            if (pending.hasRowsInState()) {
                context.advanceEventTime(heapTime);
            }
            pending.releaseHeap(
                    heapTime,
                    (key, changes) -> {
                        keys.setCurrentKey(key);
                        for (RowData change : changes) {
                            released.apply(change);
                        }
                    });
        }
        context.advanceEventTime(time);
    }

    /** Releases the build changes of the current key that a watermark released at a time. */
    @Override
    public void onEventTime(InternalTimer<Object, Long> timer) throws Exception {
        ReleasedBuildChanges released = context.released();
        long time = timer.getNamespace();
        for (RowData change : pending.take(time)) {
            released.apply(change);
        }
        // A held -U whose +U has not come goes alone, after the changes of its time, which
        // arrived before it.
        for (RowData updateBefore : held.takeReleased(time, timer.getTimestamp())) {
            released.addPending(time, updateBefore);
        }
    }

    @Override
    public void onProcessingTime(InternalTimer<Object, Long> timer) {
        throw new IllegalStateException("Build changes are only released by watermarks.");
    }

    void readRestored() throws Exception {
        held.readRestored();
        pending.readRestored();
    }

    void writeToState() throws Exception {
        held.writeToState();
        pending.writeToState(timers);
    }
}
