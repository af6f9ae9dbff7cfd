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

import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;
import org.apache.flink.table.data.RowData;

import org.slf4j.Logger;

import javax.annotation.Nullable;

/**
 * The probe rows that wait: buffered in the load phase, then joined by the drain at the flip.
 *
 * <p>The drain joins them in slices: a first slice at once, the others each from a timer, so that
 * between two slices the task goes on with its input, checkpoint barriers included, and with its
 * mails, a cancellation included. A checkpoint taken between two slices keeps the rows not joined
 * yet, and a restore joins them. A slice ends after {@link
 * LateralSnapshotJoinParameters#DRAIN_SLICE_ROWS} rows or the parameters' slice time, whichever
 * comes first. During the drain a probe row whose key still has buffered rows waits behind them,
 * and every probe row that arrives lets the drain join {@link #DRAIN_ROWS_PER_PROBE_ROW} more.
 */
final class BufferedProbeRows {

    /** How many buffered rows the drain joins for each probe row that arrives while it runs. */
    static final int DRAIN_ROWS_PER_PROBE_ROW = 2;

    private final ProbeBuffer buffer;
    private final ProbeBuffer.DrainedRows joiner;
    private final ProcessingTimeService processingTime;
    private final long sliceNanos;
    private final Logger log;

    /** Called once the last buffered row is out. */
    private final Runnable drained;

    /** Probe rows buffered since the start or restore; the drain counts those down. */
    private long count;

    /** The drain under way; null when none is. */
    @Nullable private ProbeBuffer.Drain drain;

    private long drainStart;
    private long drainedRows;

    BufferedProbeRows(
            ProbeBuffer buffer,
            ProbeBuffer.DrainedRows joiner,
            ProcessingTimeService processingTime,
            long sliceNanos,
            Logger log,
            Runnable drained) {
        this.buffer = buffer;
        this.joiner = joiner;
        this.processingTime = processingTime;
        this.sliceNanos = sliceNanos;
        this.log = log;
        this.drained = drained;
    }

    /** Buffers a probe row of the current key. */
    void add(RowData probeRow) throws Exception {
        buffer.add(probeRow);
        count++;
    }

    /**
     * The value of the gauge {@link LateralSnapshotJoinMetrics#NUM_PROBE_SIDE_RECORDS_BUFFERED}.
     */
    long count() {
        return count;
    }

    boolean isEmpty() throws Exception {
        return buffer.isEmpty();
    }

    boolean isDraining() {
        return drain != null;
    }

    /** Whether the drain still holds rows of the current key; only while draining. */
    boolean holdsCurrentKey() throws Exception {
        return drain.holdsCurrentKey();
    }

    /** Starts to drain the buffer and joins a first slice. */
    void startDrain() throws Exception {
        drain = buffer.startDrain();
        drainStart = processingTime.getCurrentProcessingTime();
        drainedRows = 0;
        slice();
    }

    private void slice() throws Exception {
        if (drain == null) {
            // finish() joined the rest.
            return;
        }
        if (drain(LateralSnapshotJoinParameters.DRAIN_SLICE_ROWS, sliceNanos)) {
            finishDrain();
        } else {
            // A timer fires through the mailbox after the input it has queued meanwhile. Its time
            // is just past: Flink delays a timer due now by a millisecond, to fire it after the
            // records of that millisecond (ProcessingTimeServiceUtil), and the task would idle
            // for that millisecond after every slice.
            processingTime.registerTimer(
                    processingTime.getCurrentProcessingTime() - 1, time -> slice());
        }
    }

    /** Drains a slice; returns whether the buffer is empty. */
    private boolean drain(long budget, long nanos) throws Exception {
        return drain.drain(
                budget,
                nanos,
                (probeRow, key, sameKeyAsBefore) -> {
                    drainedRows++;
                    // Rows restored from a snapshot were not counted.
                    if (count > 0) {
                        count--;
                    }
                    return joiner.join(probeRow, key, sameKeyAsBefore);
                });
    }

    private void finishDrain() {
        drain = null;
        joiner.drainEnded();
        log.info(
                "LATERAL SNAPSHOT join joined {} buffered probe rows in {} ms.",
                drainedRows,
                processingTime.getCurrentProcessingTime() - drainStart);
        drained.run();
    }

    /**
     * Joins {@link #DRAIN_ROWS_PER_PROBE_ROW} buffered rows for a probe row that arrived during the
     * drain. The slices run only between input rows; without this, a probe source faster than the
     * join (a join with a costly condition, say) would fill the buffer of a key being drained
     * without end, instead of being slowed down by backpressure. So the buffer shrinks with every
     * probe row taken in, and the input goes at the pace of the join.
     */
    void keepDrainAheadOfInput() throws Exception {
        for (int i = 0; i < DRAIN_ROWS_PER_PROBE_ROW && drain != null; i++) {
            // A budget of one joins exactly one row.
            if (drain(1, Long.MAX_VALUE)) {
                finishDrain();
            }
        }
    }

    /** Lets go of what a drain under way holds, when the operator closes. */
    void close() throws Exception {
        if (drain != null) {
            drain = null;
            joiner.drainEnded();
        }
        buffer.close();
    }

    /** Joins what the drain has left, at the end of the input, where no timer fires any more. */
    void finish() throws Exception {
        if (drain != null) {
            drain(Long.MAX_VALUE, Long.MAX_VALUE);
            finishDrain();
        }
    }
}
