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

import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.util.clock.SystemClock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * The enumerator of the wrapped source, which reports a backlog from the moment its source
 * publishes the {@code pendingRecords} gauge until every reader has caught up. Its state is the
 * wrapped enumerator's, unchanged, and so is everything it does for the source.
 *
 * <p>On every start, of a new enumerator or of one restored from a checkpoint, it starts the
 * wrapped enumerator. Once the wrapped enumerator's initial discovery has gone quiet ({@link
 * DiscoveryTrackingContext}), it tells every registered reader, and every reader that registers
 * later, that its assignment is complete; each reader then says how it has caught up ({@link
 * CaughtUpBacklogReader}). The first reader that finds the gauge set says so, and the enumerator
 * reports a backlog. When every subtask of the current parallelism has caught up after that, it
 * reports the end of the backlog, once, and tells the readers that may still be watching. A subtask
 * whose latest report is {@code IDLE_WITHOUT_GAUGE} counts as caught up once another subtask's
 * latest report is {@code PENDING_RECORDS_ZERO}: that reader shows that the source publishes the
 * gauge and that the system behind it answers, so a reader that has had nothing to read and no
 * gauge is taken to have read empty splits. A subtask that registers again must report again, so a
 * gauge seen before a failure never vouches for a restarted reader.
 *
 * <p>A source that never sets the gauge (one without it, an empty Kafka topic, a topic read from
 * its latest offset) reports no backlog, and its end does not end the join's load phase: the join's
 * other conditions do. The enumerator says so in the log once every reader has had nothing to read
 * without a gauge. Flink does not checkpoint the backlog, so a restore starts over: a backlog once
 * a restored reader has read records, then its end once the readers have caught up again.
 *
 * <p>When the wrapped enumerator reports a backlog of its own, its reports go through and this one
 * reports nothing.
 */
final class CaughtUpBacklogEnumerator<SplitT extends SourceSplit, CheckpointT>
        implements SplitEnumerator<SplitT, CheckpointT> {

    private static final Logger LOG = LoggerFactory.getLogger(CaughtUpBacklogEnumerator.class);

    /** Creates the wrapped enumerator with the context it is given. */
    interface Factory<SplitT extends SourceSplit, CheckpointT> {
        SplitEnumerator<SplitT, CheckpointT> create(SplitEnumeratorContext<SplitT> context)
                throws Exception;
    }

    private final SplitEnumerator<SplitT, CheckpointT> enumerator;
    private final DiscoveryTrackingContext<SplitT> tracking;
    private final SplitEnumeratorContext<SplitT> context;

    /** The latest report of each subtask that has reported since it last registered. */
    private final Map<Integer, Kind> caughtUp = new HashMap<>();

    private boolean assignmentComplete;
    private boolean backlogStarted;
    private boolean backlogEnded;
    private boolean noGaugeLogged;
    private long startedAt;

    private CaughtUpBacklogEnumerator(
            SplitEnumerator<SplitT, CheckpointT> enumerator,
            DiscoveryTrackingContext<SplitT> tracking) {
        this.enumerator = checkNotNull(enumerator);
        this.tracking = tracking;
        this.context = tracking.coordinatorContext();
        tracking.onQuiet(this::completeAssignment);
    }

    /** The wrapper of the enumerator that the factory creates with a tracking context. */
    static <SplitT extends SourceSplit, CheckpointT>
            CaughtUpBacklogEnumerator<SplitT, CheckpointT> create(
                    SplitEnumeratorContext<SplitT> context, Factory<SplitT, CheckpointT> factory)
                    throws Exception {
        DiscoveryTrackingContext<SplitT> tracking = new DiscoveryTrackingContext<>(context);
        return new CaughtUpBacklogEnumerator<>(factory.create(tracking), tracking);
    }

    // ---- the backlog ----

    @Override
    public void start() {
        startedAt = SystemClock.getInstance().relativeTimeMillis();
        enumerator.start();
        tracking.started();
    }

    private void completeAssignment() {
        assignmentComplete = true;
        if (!tracking.reportsOwnBacklog()) {
            context.registeredReaders().keySet().forEach(this::tellAssignmentComplete);
        }
    }

    @Override
    public void addReader(int subtaskId) {
        // A subtask registers again after it failed; its new reader starts from a checkpoint and,
        // until the backlog has ended, says again how it has caught up.
        caughtUp.remove(subtaskId);
        enumerator.addReader(subtaskId);
        if (tracking.reportsOwnBacklog()) {
            return;
        }
        if (backlogEnded) {
            tellBacklogEnded(subtaskId);
        } else if (assignmentComplete) {
            tellAssignmentComplete(subtaskId);
        }
    }

    /** Sent after what the wrapped enumerator sent the reader, so after its splits. */
    private void tellAssignmentComplete(int subtaskId) {
        context.sendEventToSourceReader(subtaskId, new AssignmentCompleteEvent());
    }

    @Override
    public void handleSourceEvent(int subtaskId, SourceEvent sourceEvent) {
        if (sourceEvent instanceof ReaderCaughtUpEvent event) {
            readerReported(subtaskId, event.kind());
        } else if (sourceEvent instanceof PendingRecordsPublishedEvent) {
            startBacklog(subtaskId);
        } else {
            enumerator.handleSourceEvent(subtaskId, sourceEvent);
        }
    }

    private void startBacklog(int subtaskId) {
        if (backlogStarted || tracking.reportsOwnBacklog()) {
            return;
        }
        backlogStarted = true;
        context.setIsProcessingBacklog(true);
        LOG.info(
                "Subtask {} of the source publishes the pendingRecords gauge: the source reports a"
                        + " backlog until its {} readers have caught up.",
                subtaskId,
                context.currentParallelism());
    }

    private void readerReported(int subtaskId, Kind kind) {
        if (backlogEnded || tracking.reportsOwnBacklog()) {
            return;
        }
        if (kind == Kind.READING_AGAIN) {
            caughtUp.remove(subtaskId);
            return;
        }
        caughtUp.put(subtaskId, kind);
        int parallelism = context.currentParallelism();
        Map<Kind, Integer> kinds = new EnumMap<>(Kind.class);
        for (int subtask = 0; subtask < parallelism; subtask++) {
            Kind caughtUpBy = caughtUp.get(subtask);
            if (caughtUpBy == null) {
                return;
            }
            kinds.merge(caughtUpBy, 1, Integer::sum);
        }
        if (!backlogStarted) {
            logNoGauge(parallelism, kinds);
        } else if (!kinds.containsKey(Kind.IDLE_WITHOUT_GAUGE)
                || kinds.containsKey(Kind.PENDING_RECORDS_ZERO)) {
            // A reader idle without a gauge counts once a reader of the current attempts has
            // caught up by its gauge: the gauge seen before a subtask failed says nothing of the
            // restarted reader's first fetch, which can take longer than a re-check interval.
            endBacklog(parallelism, kinds);
        }
    }

    private void logNoGauge(int parallelism, Map<Kind, Integer> kinds) {
        if (noGaugeLogged) {
            return;
        }
        noGaugeLogged = true;
        // Info, not a warning: a Kafka reader's first fetch can take longer than a re-check
        // interval, and the backlog then starts right after this line.
        LOG.info(
                "None of the source's {} readers has anything to read, and the source has set"
                        + " no pendingRecords gauge in any of them (readers by how they stand:"
                        + " {}): it reports no backlog until a reader reads records and finds"
                        + " the gauge set, and the end of a backlog does not end the load phase"
                        + " of the LATERAL SNAPSHOT join it feeds. An empty topic, or one read"
                        + " from its latest offset, has no records to read; the join's other"
                        + " conditions end its load phase.",
                parallelism,
                kinds);
    }

    private void endBacklog(int parallelism, Map<Kind, Integer> kinds) {
        backlogEnded = true;
        context.setIsProcessingBacklog(false);
        LOG.info(
                "The source reports the end of its backlog: its {} readers caught up {} ms after it"
                        + " started; readers by how they caught up: {}.",
                parallelism,
                SystemClock.getInstance().relativeTimeMillis() - startedAt,
                kinds);
        caughtUp.forEach(
                (subtask, caughtUpBy) -> {
                    if (caughtUpBy == Kind.IDLE_WITHOUT_GAUGE) {
                        tellBacklogEnded(subtask);
                    }
                });
    }

    /** Stops a reader that may still be watching; the others have stopped on their own. */
    private void tellBacklogEnded(int subtaskId) {
        context.sendEventToSourceReader(subtaskId, new BacklogEndedEvent());
    }

    // ---- the wrapped enumerator's, unchanged ----

    @Override
    public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
        enumerator.handleSplitRequest(subtaskId, requesterHostname);
    }

    @Override
    public void addSplitsBack(List<SplitT> splits, int subtaskId) {
        enumerator.addSplitsBack(splits, subtaskId);
    }

    @Override
    public CheckpointT snapshotState(long checkpointId) throws Exception {
        return enumerator.snapshotState(checkpointId);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        enumerator.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        enumerator.notifyCheckpointAborted(checkpointId);
    }

    @Override
    public void close() throws IOException {
        enumerator.close();
    }
}
