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

import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.metrics.Counter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.util.RowDataUtil;
import org.apache.flink.types.RowKind;

import java.util.List;

/**
 * Puts the build changes in the order the build side sees them, and applies them when the build
 * watermark passes their time.
 *
 * <p>A change waits in the {@link BuildChangeBuffer} until the build watermark reaches its time
 * (the {@code on_time} column); changes with equal times keep their arrival order. A change without
 * a time (the key-only delete of an upsert source, say) is ordered after every change that arrived
 * before it. An update pair (a -U followed by its +U on the same join key) is applied as one change
 * at the later of their times: the -U carries the old row's time, and applying it alone would leave
 * the key without a row until the +U's time. A -U is therefore held until the next change of its
 * key: its +U, which it is applied with, or anything else, which lets it go alone; should nothing
 * come, a watermark lets it go alone once it has passed both the -U's own time and the latest build
 * time seen when it arrived. A change whose time the watermark has already passed is applied at
 * once (every pending change has a later time); such an insert or update is counted as late.
 *
 * <p>The latest build time and the build watermark are union operator state: a restore applies the
 * changes up to the highest build watermark of the snapshot before it joins probe rows restored
 * from a subtask that was still loading (see {@link #releaseRestoredWatermark}).
 */
final class BuildChangeOrder implements ReleasedBuildChanges {

    private final LateralSnapshotJoinParameters parameters;
    private final UnionLongState maxBuildTimeState;
    private final UnionLongState buildWatermarkState;

    /** The highest build watermark any subtask had reached when the restored snapshot was taken. */
    private final long restoredBuildWatermark;

    private long maxBuildTime;
    private long buildWatermark = Long.MIN_VALUE;

    /** The build time up to which a flip without any build watermark applied the changes. */
    private long appliedAtFlip = Long.MIN_VALUE;

    private BuildChangeBuffer changes;
    private BuildSideWriter writer;
    private Counter lateBuildRecords;

    /** Called from the operator's {@code initializeState}, where the operator state is. */
    BuildChangeOrder(LateralSnapshotJoinParameters parameters, OperatorStateStore operatorState)
            throws Exception {
        this.parameters = parameters;
        this.maxBuildTimeState =
                new UnionLongState(operatorState, LateralSnapshotJoinStateNames.MAX_BUILD_TIME);
        this.maxBuildTime = maxBuildTimeState.max(Long.MIN_VALUE);
        this.buildWatermarkState =
                new UnionLongState(operatorState, LateralSnapshotJoinStateNames.BUILD_WATERMARK);
        this.restoredBuildWatermark = buildWatermarkState.max(Long.MIN_VALUE);
    }

    /** Called from the operator's {@code open}. */
    void open(BuildChangeBuffer changes, BuildSideWriter writer, Counter lateBuildRecords) {
        this.changes = changes;
        this.writer = writer;
        this.lateBuildRecords = lateBuildRecords;
    }

    void snapshot() throws Exception {
        maxBuildTimeState.update(maxBuildTime);
        // What a restore releases before it joins probe rows of a loading subtask: everything
        // this subtask had applied, also without a watermark.
        buildWatermarkState.update(
                Math.max(Math.max(buildWatermark, appliedAtFlip), restoredBuildWatermark));
    }

    long watermark() {
        return buildWatermark;
    }

    /** Takes a build change of the current key. */
    void receive(RowData change) throws Exception {
        boolean timed = parameters.hasTime(change);
        long time;
        if (timed) {
            time = parameters.timeOf(change);
            maxBuildTime = Math.max(maxBuildTime, time);
        } else {
            // A change without a time comes after every change that arrived before it.
            time = Math.max(maxBuildTime, buildWatermark);
        }
        RowKind kind = change.getRowKind();
        if (kind == RowKind.UPDATE_BEFORE && timed) {
            hold(time, change);
        } else if (kind == RowKind.UPDATE_AFTER) {
            List<RowData> held = changes.takeHeld();
            long pairTime = time;
            for (RowData updateBefore : held) {
                pairTime = Math.max(pairTime, parameters.timeOf(updateBefore));
            }
            for (RowData updateBefore : held) {
                addPending(pairTime, updateBefore);
            }
            addPending(pairTime, change);
        } else {
            // The held -U rows did not get their +U next: they are applied alone, at their times.
            for (RowData updateBefore : changes.takeHeld()) {
                addPending(parameters.timeOf(updateBefore), updateBefore);
            }
            addPending(time, change);
        }
    }

    /**
     * Holds a -U until the next change of its key. Should nothing come, a watermark lets it go
     * alone once it has passed both the -U's own time and the latest build time seen so far: a
     * watermark goes past the latest time only after a later row, so the +U that follows its -U
     * arrives first. The -U's own time alone would not do: it is the old row's, and right after a
     * restore a watermark that reaches it can come between the -U and its +U. Nor would reaching
     * the latest time: a periodic watermark that equals it can come between them too.
     */
    private void hold(long time, RowData updateBefore) throws Exception {
        long releaseAt =
                Math.max(time, maxBuildTime == Long.MAX_VALUE ? maxBuildTime : maxBuildTime + 1);
        changes.hold(time, releaseAt, updateBefore);
    }

    /**
     * Adds a change to the pending changes of its time, or applies it at once when the build
     * watermark has already passed that time: every pending change has a later time, so the time
     * order holds. Such an insert or update is counted as late; a retraction is not, because it
     * carries the time of the row it retracts.
     */
    @Override
    public void addPending(long time, RowData change) throws Exception {
        if (time <= buildWatermark) {
            if (RowDataUtil.isAccumulateMsg(change)) {
                lateBuildRecords.inc();
            }
            writer.apply(change);
            return;
        }
        changes.add(time, change);
    }

    @Override
    public void apply(RowData change) throws Exception {
        writer.apply(change);
    }

    /**
     * Applies everything a build watermark releases, before the next probe row; returns false for a
     * watermark that does not advance.
     */
    boolean advanceWatermark(long watermark) throws Exception {
        if (watermark <= buildWatermark) {
            return false;
        }
        buildWatermark = watermark;
        release(watermark);
        return true;
    }

    /**
     * At a flip before any build watermark, which no watermark says the build side is loaded by:
     * what it sent is the loaded build side, applied in time order.
     */
    void applyWithoutWatermark() throws Exception {
        if (buildWatermark == Long.MIN_VALUE) {
            applyReceived();
        }
    }

    /**
     * At a flip at the end of the build input's backlog, after which every change it held has
     * arrived: all of them are the loaded build side, applied in time order, also those that the
     * build watermark has not reached. Later changes wait for the watermark as ever.
     */
    void applyReceived() throws Exception {
        if (maxBuildTime != Long.MIN_VALUE && maxBuildTime > buildWatermark) {
            appliedAtFlip = maxBuildTime;
            release(maxBuildTime);
        }
    }

    /**
     * Before a restore joins probe rows that a loading subtask buffered: the subtask that had
     * flipped had applied the changes up to this build watermark, and every subtask gets the same
     * one from the build input, so the changes it releases here are part of the loaded build side
     * that a flip would have joined these rows against.
     */
    void releaseRestoredWatermark() throws Exception {
        if (restoredBuildWatermark > buildWatermark) {
            release(restoredBuildWatermark);
        }
    }

    /** Applies the changes up to the time, with the writes of the build side held until the end. */
    private void release(long time) throws Exception {
        writer.applyReleased(() -> changes.releaseUpTo(time));
    }
}
