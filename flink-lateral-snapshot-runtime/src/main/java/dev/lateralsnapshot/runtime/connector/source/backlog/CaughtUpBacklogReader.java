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

package dev.lateralsnapshot.runtime.connector.source.backlog;

import dev.lateralsnapshot.runtime.connector.source.backlog.ReaderCaughtUpEvent.Kind;

import org.apache.flink.api.connector.source.ExternallyInducedSourceReader;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.util.clock.Clock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * A reader of the wrapped source that tells the enumerator when its source publishes the {@code
 * pendingRecords} gauge ({@link PendingRecordsPublishedEvent}) and how it has caught up ({@link
 * ReaderCaughtUpEvent}). Its splits, its state and its records are the wrapped reader's; it only
 * watches.
 *
 * <p>It has caught up when the enumerator has said that its assignment is complete, the wrapped
 * reader has just had nothing to read (its queue is drained), and one of these holds: it has no
 * split, or the source's {@code pendingRecords} gauge has read 0 at every check for at least {@link
 * #RECHECK_INTERVAL}. A reader that ends has caught up too, or its subtask would never say so. Each
 * of these reports is final.
 *
 * <p>A reader whose source has set no gauge and that has had nothing to read for {@link
 * #RECHECK_INTERVAL} reports that ({@code IDLE_WITHOUT_GAUGE}), which the enumerator counts once
 * the source has published the gauge in another reader; that report is not final. The reader keeps
 * watching until the enumerator says that the backlog has ended: when it reads records or gets new
 * splits, it takes its report back, and reports again by the same rules once it has nothing to
 * read, by a gauge the source has set meanwhile if there is one.
 *
 * <p>Until its report is final or the backlog has ended, {@link #isAvailable()} also completes
 * every {@link #RECHECK_INTERVAL}, so that a reader with nothing to read checks again; a source's
 * lag can drop to 0 without a record to wake its reader.
 *
 * <p>A reader that fails to read a record with an {@link IOException} fails with one that lists its
 * splits as they stand ({@link #withSplits}): Flink's Kafka source fails on a record its format
 * cannot read without naming the topic, the partition or the offset.
 */
class CaughtUpBacklogReader<T, SplitT extends SourceSplit> implements SourceReader<T, SplitT> {

    private static final Logger LOG = LoggerFactory.getLogger(CaughtUpBacklogReader.class);

    /**
     * How often a reader that has not caught up checks again while it has nothing to read, how long
     * the gauge must read 0, and how long a reader without a gauge must have had nothing to read
     * before it says so. A fetcher records its lag before it hands the fetched records to the
     * reader's queue, so a 0 read once may still be followed by a batch; half a second is far
     * longer than that hand-over, and delays the end of the backlog by about a second at most.
     */
    static final Duration RECHECK_INTERVAL = Duration.ofMillis(500);

    /** A future that completes after a delay, for the re-checks. */
    interface Timer {
        CompletableFuture<Void> after(Duration delay);
    }

    /** The JDK's timer, which needs no thread of the reader's own. */
    static final Timer JDK_TIMER =
            delay ->
                    new CompletableFuture<Void>()
                            .completeOnTimeout(null, delay.toMillis(), TimeUnit.MILLISECONDS);

    private static final long NEVER = Long.MIN_VALUE;

    /**
     * The checkpoint id under which a failed reader's splits are taken ({@link #withSplits}): no
     * checkpoint has it, so the offsets that Kafka's reader keeps for it are never committed.
     */
    private static final long SPLITS_OF_A_FAILURE = Long.MAX_VALUE;

    private final SourceReader<T, SplitT> reader;
    private final PendingRecordsReaderContext context;
    private final Clock clock;
    private final Timer timer;

    private boolean hasSplits;
    private boolean assignmentComplete;

    /** Whether it has told the enumerator that the source set its gauge. */
    private boolean gaugeAnnounced;

    /** Whether its latest report is an IDLE_WITHOUT_GAUGE that it has not taken back. */
    private boolean idleReported;

    /** Whether it has stopped watching: its report is final, or the backlog has ended. */
    private boolean done;

    /** Since when the reader has had nothing to read, in the clock's millis; NEVER while it has. */
    private long idleSince = NEVER;

    /** Since when the gauge has read 0 at every check; NEVER while it has not. */
    private long zeroSince = NEVER;

    @Nullable private CompletableFuture<Void> recheck;

    private CaughtUpBacklogReader(
            SourceReader<T, SplitT> reader,
            PendingRecordsReaderContext context,
            Clock clock,
            Timer timer) {
        this.reader = checkNotNull(reader);
        this.context = checkNotNull(context);
        this.clock = checkNotNull(clock);
        this.timer = checkNotNull(timer);
    }

    /**
     * Wraps the reader, as one that is {@link ExternallyInducedSourceReader} when the reader is:
     * the task checks for that by class.
     */
    static <T, SplitT extends SourceSplit> CaughtUpBacklogReader<T, SplitT> wrap(
            SourceReader<T, SplitT> reader,
            PendingRecordsReaderContext context,
            Clock clock,
            Timer timer) {
        return reader instanceof ExternallyInducedSourceReader<T, SplitT> induced
                ? new ExternallyInduced<>(induced, context, clock, timer)
                : new CaughtUpBacklogReader<>(reader, context, clock, timer);
    }

    // ---- catching up ----

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
        InputStatus status;
        try {
            status = reader.pollNext(output);
        } catch (IOException e) {
            throw withSplits(e);
        }
        if (!done) {
            announceGauge();
            switch (status) {
                case MORE_AVAILABLE -> reading();
                case NOTHING_AVAILABLE -> check();
                case END_OF_INPUT -> report(Kind.END_OF_INPUT, "it has ended");
            }
        }
        return status;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        CompletableFuture<Void> available = reader.isAvailable();
        if (done || available.isDone()) {
            return available;
        }
        if (recheck == null || recheck.isDone()) {
            recheck = timer.after(RECHECK_INTERVAL);
        }
        return available.applyToEither(recheck, ignored -> null);
    }

    @Override
    public void addSplits(List<SplitT> splits) {
        if (!splits.isEmpty()) {
            hasSplits = true;
            zeroSince = NEVER;
            reading();
        }
        reader.addSplits(splits);
    }

    @Override
    public void handleSourceEvents(SourceEvent sourceEvent) {
        if (sourceEvent instanceof AssignmentCompleteEvent) {
            assignmentComplete = true;
        } else if (sourceEvent instanceof BacklogEndedEvent) {
            done = true;
        } else {
            reader.handleSourceEvents(sourceEvent);
        }
    }

    private void check() {
        long now = clock.relativeTimeMillis();
        if (idleSince == NEVER) {
            idleSince = now;
        }
        if (!assignmentComplete) {
            return;
        }
        if (!hasSplits) {
            report(Kind.NO_SPLIT, "it has no split");
            return;
        }
        Gauge<Long> gauge = context.pendingRecords();
        if (gauge == null) {
            long idle = now - idleSince;
            if (idle >= RECHECK_INTERVAL.toMillis() && !idleReported) {
                report(
                        Kind.IDLE_WITHOUT_GAUGE,
                        "its source has set no pendingRecords gauge and it has had nothing to read"
                                + " for "
                                + idle
                                + " ms");
            }
            return;
        }
        Long pending = gauge.getValue();
        if (pending == null || pending != 0) {
            zeroSince = NEVER;
        } else if (zeroSince == NEVER) {
            zeroSince = now;
        } else if (now - zeroSince >= RECHECK_INTERVAL.toMillis()) {
            report(
                    Kind.PENDING_RECORDS_ZERO,
                    "its pendingRecords gauge has read 0 for " + (now - zeroSince) + " ms");
        }
    }

    /**
     * Kafka's reader sets the gauge after its first fetch that returned records; from then on, the
     * source can be weighed by it, and the enumerator reports a backlog.
     */
    private void announceGauge() {
        if (!gaugeAnnounced && context.pendingRecords() != null) {
            gaugeAnnounced = true;
            LOG.info(
                    "Subtask {} of the source publishes the pendingRecords gauge.",
                    context.getIndexOfSubtask());
            context.sendSourceEventToCoordinator(new PendingRecordsPublishedEvent());
        }
    }

    private void report(Kind kind, String reason) {
        idleReported = kind == Kind.IDLE_WITHOUT_GAUGE;
        done = !idleReported;
        if (done) {
            LOG.info(
                    "Subtask {} of the source has caught up: {}.",
                    context.getIndexOfSubtask(),
                    reason);
        } else {
            // Debug only: a source without the gauge whose records trickle in reports and takes
            // back after every pause until the backlog ends.
            LOG.debug(
                    "Subtask {} of the source may have caught up: {}.",
                    context.getIndexOfSubtask(),
                    reason);
        }
        context.sendSourceEventToCoordinator(new ReaderCaughtUpEvent(kind));
    }

    /**
     * The reader has records or new splits: it has not caught up, whatever it said without a gauge.
     */
    private void reading() {
        idleSince = NEVER;
        if (!done && idleReported) {
            idleReported = false;
            LOG.debug(
                    "Subtask {} of the source reads again and takes back that it may have caught"
                            + " up.",
                    context.getIndexOfSubtask());
            context.sendSourceEventToCoordinator(new ReaderCaughtUpEvent(Kind.READING_AGAIN));
        }
    }

    /**
     * The failure, with the splits of the reader as they stand after the last record it emitted.
     * Flink's Kafka source fails on a record its format cannot read with {@code Failed to
     * deserialize consumer record due to} and the format's message ({@code KafkaRecordEmitter}),
     * which has the record's topic, partition and offset but passes none of them on. Its split
     * names the topic and the partition, and starts at the offset after the last record it emitted:
     * the failed record is the first record at or after it. The splits are taken as a checkpoint
     * takes them; should that fail too, the failure is thrown as it is.
     */
    private IOException withSplits(IOException failure) {
        List<SplitT> splits;
        try {
            splits = reader.snapshotState(SPLITS_OF_A_FAILURE);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
            return failure;
        }
        return new IOException(
                "Subtask "
                        + context.getIndexOfSubtask()
                        + " of the source failed to read a record of "
                        + (splits.size() == 1
                                ? "its split " + splits.get(0) + " (the split as it stands"
                                : "one of its splits " + splits + " (each as it stands")
                        + " after the last record the reader emitted)",
                failure);
    }

    // ---- the wrapped reader's, unchanged ----

    @Override
    public void start() {
        reader.start();
    }

    @Override
    public List<SplitT> snapshotState(long checkpointId) {
        return reader.snapshotState(checkpointId);
    }

    @Override
    public void notifyNoMoreSplits() {
        reader.notifyNoMoreSplits();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        reader.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        reader.notifyCheckpointAborted(checkpointId);
    }

    @Override
    public void pauseOrResumeSplits(
            Collection<String> splitsToPause, Collection<String> splitsToResume) {
        reader.pauseOrResumeSplits(splitsToPause, splitsToResume);
    }

    @Override
    public void close() throws Exception {
        reader.close();
    }

    /** The wrapper of a reader that triggers checkpoints itself. */
    private static final class ExternallyInduced<T, SplitT extends SourceSplit>
            extends CaughtUpBacklogReader<T, SplitT>
            implements ExternallyInducedSourceReader<T, SplitT> {

        private final ExternallyInducedSourceReader<T, SplitT> reader;

        ExternallyInduced(
                ExternallyInducedSourceReader<T, SplitT> reader,
                PendingRecordsReaderContext context,
                Clock clock,
                Timer timer) {
            super(reader, context, clock, timer);
            this.reader = reader;
        }

        @Override
        public Optional<Long> shouldTriggerCheckpoint() {
            return reader.shouldTriggerCheckpoint();
        }
    }
}
