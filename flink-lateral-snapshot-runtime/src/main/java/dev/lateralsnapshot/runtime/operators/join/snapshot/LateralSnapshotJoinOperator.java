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

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.streaming.api.operators.StreamingRuntimeContext;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.ExceptionUtils;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import static org.apache.flink.util.Preconditions.checkNotNull;
import static org.apache.flink.util.Preconditions.checkState;

/**
 * The LATERAL SNAPSHOT join: joins every row of an append-only probe input (input 1) once, at once,
 * with the build rows (input 2) that are current at that moment, and never revises a result.
 *
 * <p>The operator runs in two phases:
 *
 * <ul>
 *   <li><b>Load phase.</b> Build changes are collected; probe rows are buffered and nothing is
 *       emitted. The probe watermark is held back. The load ends when the build watermark reaches
 *       the load completed time, when the build input reports the end of its backlog and the join
 *       was asked to wait for it, or, when an idle timeout is set, when the build watermark has not
 *       advanced for that long in processing time ({@link LoadPhaseEnd}).
 *   <li><b>Join phase.</b> At the flip the buffered probe rows are joined and emitted, in slices
 *       between which the task takes its input, checkpoints and cancellation; then the held probe
 *       watermark is released. A flip that comes before any build watermark first applies every
 *       build change received so far, in time order. From then on each probe row is joined
 *       immediately, unless its key still has buffered rows: it then waits behind them. The output
 *       is insert-only.
 * </ul>
 *
 * <p><b>Build changes</b> are applied in time order when the build watermark passes them ({@link
 * BuildChangeOrder}); everything one watermark releases is applied before the next probe row, so a
 * probe row sees an update either not at all or whole. Every change to the build rows goes through
 * {@link BuildSideWriter}.
 *
 * <p><b>Watermarks.</b> The output watermark is the probe watermark, forwarded only in the join
 * phase and after the drain. The build watermark drives the application of build changes and the
 * flip and is never forwarded; neither is the build side's watermark status, which only starts the
 * idle clock.
 *
 * <p><b>State.</b> The {@link BuildSideDistribution} of the parameters decides how the state is
 * kept ({@link JoinState}); the package comment says which class owns which part. The phase is
 * union operator state: after a restore a subtask is in the join phase when any subtask was, and
 * then joins the probe rows it restored from a subtask that was still loading, once it has applied
 * the build changes up to the highest build watermark of the snapshot.
 */
public class LateralSnapshotJoinOperator extends AbstractStreamOperator<RowData>
        implements TwoInputStreamOperator<RowData, RowData, RowData> {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(LateralSnapshotJoinOperator.class);

    private final LateralSnapshotJoinParameters parameters;

    // ---- state ----

    private transient JoinState state;
    private transient UnionPhaseState phaseState;
    private transient BuildChangeOrder buildChanges;
    private transient LoadPhaseEnd loadPhaseEnd;
    private transient boolean restored;
    private transient boolean joinPhase;
    private transient boolean restoredProbeRowsToDrain;

    // ---- runtime ----

    @Nullable private transient JoinFunctions functions;
    private transient BuildSideWriter writer;
    private transient ProbeRowJoiner joiner;
    private transient long probeWatermark;
    private transient boolean probeIdle;
    private transient long startTime;
    private transient long loadPhaseDuration;
    private transient BufferedProbeRows bufferedProbeRows;
    private transient HeapLimit heapLimit;

    public LateralSnapshotJoinOperator(LateralSnapshotJoinParameters parameters) {
        this.parameters = checkNotNull(parameters);
    }

    // ---- lifecycle ----

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        restored = context.isRestored();
        state = parameters.distribution().createState(parameters);
        state.initialize(context.getOperatorStateStore(), restored);
        phaseState = new UnionPhaseState(context.getOperatorStateStore());
        // Subtasks differ in phase only around the flip, which all of them reach from the same
        // build watermark. Going back to loading could wait forever for a watermark that was
        // already seen, so the join phase wins and the rows buffered by a loading subtask are
        // joined right after the restore.
        joinPhase = phaseState.restoredAnyJoinPhase();
        phaseState.update(joinPhase);
        buildChanges = new BuildChangeOrder(parameters, context.getOperatorStateStore());
        loadPhaseEnd = new LoadPhaseEnd(parameters, context.getOperatorStateStore());
    }

    @Override
    public void open() throws Exception {
        super.open();
        state.open(new Context());
        MetricGroup metrics = getRuntimeContext().getMetricGroup();
        writer =
                new BuildSideWriter(
                        state.buildSide(),
                        state.ttl(),
                        () -> joinPhase,
                        metrics.counter(LateralSnapshotJoinMetrics.NUM_UNMATCHED_BUILD_RETRACTIONS),
                        metrics.counter(LateralSnapshotJoinMetrics.NUM_BUILD_SIDE_CHANGES_APPLIED),
                        metrics.counter(LateralSnapshotJoinMetrics.NUM_STATE_TTL_EVICTIONS));
        buildChanges.open(
                state.changes(),
                writer,
                metrics.counter(LateralSnapshotJoinMetrics.NUM_LATE_BUILD_SIDE_RECORDS));
        functions = JoinFunctions.open(parameters, getRuntimeContext());
        // Output rows carry their time in the probe's time attribute columns; a record timestamp
        // would only be set for rows joined in the join phase, so none is set at all.
        TimestampedCollector<RowData> collector = new TimestampedCollector<>(output);
        collector.eraseTimestamp();
        joiner =
                new ProbeRowJoiner(
                        parameters,
                        functions.condition(),
                        state,
                        writer,
                        functions.joinedRows(collector),
                        metrics);
        bufferedProbeRows =
                new BufferedProbeRows(
                        state.probeBuffer(),
                        joiner,
                        getProcessingTimeService(),
                        parameters.drainSliceNanos(),
                        LOG,
                        this::releaseProbeWatermark);
        probeWatermark = Long.MIN_VALUE;
        loadPhaseEnd.open(
                getProcessingTimeService(),
                () -> joinPhase,
                buildChanges::watermark,
                LOG,
                this::flipToJoinPhase);
        startTime = getProcessingTimeService().getCurrentProcessingTime();
        heapLimit =
                new HeapLimit(
                        HeapLimit.JVM,
                        state.heapResidence(),
                        () ->
                                (joinPhase ? "join" : "load")
                                        + " phase, "
                                        + bufferedProbeRows.count()
                                        + " probe rows buffered, build side "
                                        + state);
        // Probe rows restored in the join phase come from a subtask that was still loading. Ask
        // the buffer, not the restored phases: a subtask may restore the rows of another.
        restoredProbeRowsToDrain = restored && joinPhase && !bufferedProbeRows.isEmpty();
        registerMetrics(metrics);
        if (restoredProbeRowsToDrain) {
            getProcessingTimeService()
                    .registerTimer(startTime, time -> drainRestoredProbeRowsIfDue());
        }
        LOG.info(
                "LATERAL SNAPSHOT join starts in the {} phase (load completed time {}, idle timeout"
                        + " {} ms, state TTL {} ms, build side {}). {}",
                joinPhase ? "join" : "load",
                parameters.loadCompletedTime(),
                parameters.loadCompletedIdleTimeout(),
                parameters.stateTtl(),
                state,
                LoadPhaseWarnings.endOfBacklog(parameters));
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        buildChanges.snapshot();
        loadPhaseEnd.snapshot();
        state.snapshot();
    }

    @Override
    public void close() throws Exception {
        // First the drain's iterators over the backend, which must not outlive it.
        if (bufferedProbeRows != null) {
            bufferedProbeRows.close();
        }
        if (functions != null) {
            functions.close();
        }
        super.close();
    }

    private void registerMetrics(MetricGroup group) {
        group.gauge(
                LateralSnapshotJoinMetrics.CURRENT_PHASE,
                (Gauge<Integer>)
                        () -> joinPhase ? UnionPhaseState.JOIN_PHASE : UnionPhaseState.LOAD_PHASE);
        group.gauge(
                LateralSnapshotJoinMetrics.NUM_PROBE_SIDE_RECORDS_BUFFERED,
                (Gauge<Long>) bufferedProbeRows::count);
        group.gauge(
                LateralSnapshotJoinMetrics.CURRENT_BUILD_SIDE_WATERMARK,
                (Gauge<Long>) buildChanges::watermark);
        group.gauge(
                LateralSnapshotJoinMetrics.CURRENT_PROBE_SIDE_WATERMARK,
                (Gauge<Long>) () -> probeWatermark);
        group.gauge(
                LateralSnapshotJoinMetrics.LOAD_COMPLETED_REASON,
                (Gauge<Integer>) () -> loadPhaseEnd.reason().code);
        group.gauge(
                LateralSnapshotJoinMetrics.LOAD_PHASE_DURATION,
                (Gauge<Long>)
                        () ->
                                joinPhase
                                        ? loadPhaseDuration
                                        : getProcessingTimeService().getCurrentProcessingTime()
                                                - startTime);
    }

    // ---- phases ----

    private void flipToJoinPhase(LoadPhaseEnd.Reason reason) throws Exception {
        if (reason == LoadPhaseEnd.Reason.BACKLOG_END) {
            buildChanges.applyReceived();
        } else {
            buildChanges.applyWithoutWatermark();
        }
        joinPhase = true;
        phaseState.update(true);
        loadPhaseDuration = getProcessingTimeService().getCurrentProcessingTime() - startTime;
        if (state.ttl() != null) {
            state.ttl().startAll();
        }
        LOG.info(
                "LATERAL SNAPSHOT join switches to the join phase after {} ms because {}. Build"
                        + " watermark {}, probe watermark {}, build side {}.",
                loadPhaseDuration,
                loadPhaseEnd.describe(reason),
                buildChanges.watermark(),
                probeWatermark,
                state);
        bufferedProbeRows.startDrain();
    }

    // ---- the drain ----

    /** Emits the probe watermark and idle status that the drain held back. */
    private void releaseProbeWatermark() {
        if (probeWatermark != Long.MIN_VALUE) {
            output.emitWatermark(new Watermark(probeWatermark));
        }
        // An idle output would drop the watermark: rows, watermark, then the idle status.
        if (probeIdle) {
            output.emitWatermarkStatus(WatermarkStatus.IDLE);
        }
    }

    private void drainRestoredProbeRowsIfDue() throws Exception {
        if (restoredProbeRowsToDrain) {
            startRestoredDrain();
        }
    }

    private void startRestoredDrain() throws Exception {
        restoredProbeRowsToDrain = false;
        buildChanges.releaseRestoredWatermark();
        LOG.info(
                "LATERAL SNAPSHOT join restored in the join phase, with probe rows that a"
                        + " loading subtask had buffered.");
        bufferedProbeRows.startDrain();
    }

    @Override
    public void finish() throws Exception {
        // The input has ended, and the timers of the next slices would not fire any more.
        if (restoredProbeRowsToDrain) {
            startRestoredDrain();
        }
        // Null when open failed, after which the harness of a test may still finish the operator.
        if (bufferedProbeRows != null) {
            bufferedProbeRows.finish();
        }
        super.finish();
    }

    // ---- probe side ----

    @Override
    public void processElement1(StreamRecord<RowData> record) throws Exception {
        heapLimit.rowTakenIn();
        drainRestoredProbeRowsIfDue();
        RowData probeRow = record.getValue();
        if (!joinPhase) {
            bufferedProbeRows.add(probeRow);
            return;
        }
        RowData key = state.enterProbeKey(probeRow);
        if (!bufferedProbeRows.isDraining()) {
            joiner.join(probeRow, key);
            return;
        }
        if (bufferedProbeRows.holdsCurrentKey()) {
            bufferedProbeRows.add(probeRow);
        } else {
            joiner.join(probeRow, key);
        }
        bufferedProbeRows.keepDrainAheadOfInput();
    }

    @Override
    public void processWatermark1(Watermark mark) throws Exception {
        drainRestoredProbeRowsIfDue();
        probeWatermark = mark.getTimestamp();
        if (joinPhase && !bufferedProbeRows.isDraining()) {
            output.emitWatermark(mark);
        }
    }

    @Override
    protected void processWatermarkStatus(WatermarkStatus status, int inputIndex) throws Exception {
        // The output follows the probe side only; the build side's status does not reach it.
        if (inputIndex == 1) {
            if (status.isIdle()) {
                loadPhaseEnd.buildIdle();
            }
            return;
        }
        if (probeIdle != status.isIdle()) {
            probeIdle = status.isIdle();
            // Until the drain is done the output holds its watermark back and stays active: an
            // idle output would drop the watermark released after the last buffered row. The end
            // of the drain passes IDLE on.
            if (joinPhase && !bufferedProbeRows.isDraining()) {
                output.emitWatermarkStatus(status);
            }
        }
    }

    // ---- build side ----

    @Override
    public void processElement2(StreamRecord<RowData> record) throws Exception {
        heapLimit.rowTakenIn();
        loadPhaseEnd.buildRecord();
        RowData change = record.getValue();
        if (parameters.rejects(state.enterBuildKey(change))) {
            // Never matches; keeping it would only cost state.
            return;
        }
        if (joinPhase && state.ttl() != null) {
            // A build change keeps its key alive, as a write does in Flink's state TTL.
            state.ttl().touch();
        }
        buildChanges.receive(change);
    }

    @Override
    public void processWatermark2(Watermark mark) throws Exception {
        if (buildChanges.advanceWatermark(mark.getTimestamp()) && !joinPhase) {
            loadPhaseEnd.buildWatermark(mark.getTimestamp());
        }
    }

    /**
     * The build input's backlog can end the load phase, and goes no further: the join's output
     * follows the probe side, whose attributes it passes on ({@link #processRecordAttributes1}).
     */
    @Override
    public void processRecordAttributes2(RecordAttributes recordAttributes) {
        if (!joinPhase) {
            try {
                loadPhaseEnd.buildRecordAttributes(recordAttributes);
            } catch (Exception e) {
                // Flink declares the method without exceptions; a failed flip fails the task.
                ExceptionUtils.rethrow(e);
            }
        }
    }

    @Override
    public void processRecordAttributes1(RecordAttributes recordAttributes) {
        output.emitRecordAttributes(recordAttributes);
    }

    /** The parameters the planner made the join with, for tests of the planner. */
    @VisibleForTesting
    public LateralSnapshotJoinParameters parameters() {
        return parameters;
    }

    /** The state of this subtask, for tests that look at how it is kept. */
    @VisibleForTesting
    public JoinState state() {
        return state;
    }

    // ---- what the state borrows ----

    private final class Context implements JoinStateContext {

        @Override
        public StreamingRuntimeContext runtimeContext() {
            return getRuntimeContext();
        }

        @Override
        public ProcessingTimeService processingTimeService() {
            return getProcessingTimeService();
        }

        @Override
        public KeyContext keyContext() {
            return LateralSnapshotJoinOperator.this;
        }

        @Override
        public KeyedStateBackend<Object> keyedStateBackend() {
            return checkNotNull(getKeyedStateBackend(), "The join is not keyed.");
        }

        @Override
        public KeyedStateStore keyedStateStore() {
            return checkNotNull(getKeyedStateStore(), "The join is not keyed.");
        }

        @Override
        public <N> InternalTimerService<N> timerService(
                String name,
                TypeSerializer<N> namespaceSerializer,
                Triggerable<Object, N> triggerable) {
            return getInternalTimerService(name, namespaceSerializer, triggerable);
        }

        @Override
        public void advanceEventTime(long time) throws Exception {
            checkState(timeServiceManager != null, "The join is not keyed.");
            timeServiceManager.advanceWatermark(new Watermark(time));
        }

        @Override
        public boolean isJoinPhase() {
            return joinPhase;
        }

        @Override
        public boolean restoredBothPhases() {
            return phaseState.restoredBothPhases();
        }

        @Override
        public ReleasedBuildChanges released() {
            return buildChanges;
        }

        @Override
        public void evictCurrentKey() throws Exception {
            writer.evictCurrentKey();
        }
    }
}
