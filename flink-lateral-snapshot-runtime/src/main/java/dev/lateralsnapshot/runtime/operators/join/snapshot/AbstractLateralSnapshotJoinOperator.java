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
import org.apache.flink.api.common.functions.DefaultOpenContext;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.util.FunctionUtils;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.util.RowDataUtil;
import org.apache.flink.table.runtime.generated.GeneratedFunction;
import org.apache.flink.table.runtime.generated.GeneratedJoinCondition;
import org.apache.flink.table.runtime.generated.JoinCondition;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

import org.slf4j.Logger;

import javax.annotation.Nullable;

import java.util.Arrays;
import java.util.List;

import static dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinOperator.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinOperator.CURRENT_PHASE;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinOperator.CURRENT_PROBE_SIDE_WATERMARK;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinOperator.LOAD_PHASE_DURATION;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinOperator.NUM_BUILD_SIDE_CHANGES_APPLIED;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinOperator.NUM_LATE_BUILD_SIDE_RECORDS;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinOperator.NUM_PROBE_SIDE_RECORDS_BUFFERED;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinOperator.NUM_STATE_TTL_EVICTIONS;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinOperator.NUM_UNMATCHED_BUILD_RETRACTIONS;
import static org.apache.flink.util.Preconditions.checkArgument;
import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * What the keyed {@link LateralSnapshotJoinOperator} and the {@link
 * BroadcastLateralSnapshotJoinOperator} share: the phases and the flip, the held probe watermark
 * and idle status, the order in which build changes are applied, the drain at the flip in slices,
 * and the metrics. The subclasses keep the state, and decide how a build change or probe row finds
 * its key: Flink sets it for the keyed join, the broadcast join selects it itself.
 */
abstract class AbstractLateralSnapshotJoinOperator extends AbstractStreamOperator<RowData>
        implements TwoInputStreamOperator<RowData, RowData, RowData> {

    private static final long serialVersionUID = 1L;

    // ---- configuration ----

    final InternalTypeInfo<RowData> probeType;
    final InternalTypeInfo<RowData> buildType;
    @Nullable private final GeneratedJoinCondition generatedCondition;
    private final boolean leftOuterJoin;
    private final int[] nullRejectingKeyPositions;
    final BuildSideLayout buildSideLayout;
    private final int buildTimeIndex;
    private final int buildTimePrecision;
    final long loadCompletedTime;
    final long loadCompletedIdleTimeout;
    final long stateTtl;

    /**
     * The projection and filter that run on every output row, if any; see {@link #setFusedCalc}.
     */
    @Nullable private GeneratedFunction<FlatMapFunction<RowData, RowData>> generatedCalc;

    /** The time budget of a drain slice; see {@link #setDrainSliceNanos}. */
    private long drainSliceNanos = LateralSnapshotJoinOperator.DRAIN_SLICE_NANOS;

    // ---- state ----

    transient UnionPhaseState phaseState;
    private transient UnionLongState maxBuildTimeState;
    private transient UnionLongState buildWatermarkState;

    /** The highest build watermark any subtask had reached when the restored snapshot was taken. */
    private transient long restoredBuildWatermark;

    transient boolean restored;
    transient boolean joinPhase;
    private transient boolean restoredProbeRowsToDrain;

    // ---- runtime ----

    @Nullable private transient JoinCondition condition;
    @Nullable private transient FlatMapFunction<RowData, RowData> calc;
    transient ProbeRowJoiner joiner;
    transient long buildWatermark;
    transient long maxBuildTime;
    transient long probeWatermark;
    private transient boolean probeIdle;

    private transient BuildIdleClock idleClock;

    /** The build time up to which a flip without any build watermark applied the changes. */
    private transient long appliedAtFlip;

    private transient long startTime;
    transient long loadPhaseDuration;
    private transient boolean buildWatermarkCheckScheduled;

    // ---- the drain at the flip ----

    transient boolean draining;
    private transient long drainStart;
    private transient long drainedRows;

    // ---- metric values ----

    transient long probeRowsBuffered;
    transient Counter unmatchedBuildRetractions;
    transient Counter stateTtlEvictions;
    private transient Counter lateBuildRecords;
    transient Counter buildChangesApplied;

    AbstractLateralSnapshotJoinOperator(
            InternalTypeInfo<RowData> probeType,
            InternalTypeInfo<RowData> buildType,
            @Nullable GeneratedJoinCondition generatedCondition,
            boolean leftOuterJoin,
            boolean[] filterNullKeys,
            BuildSideLayout buildSideLayout,
            int buildTimeIndex,
            int buildTimePrecision,
            long loadCompletedTime,
            long loadCompletedIdleTimeout,
            long stateTtl) {
        this.probeType = checkNotNull(probeType);
        this.buildType = checkNotNull(buildType);
        this.generatedCondition = generatedCondition;
        this.leftOuterJoin = leftOuterJoin;
        this.nullRejectingKeyPositions = positionsOf(checkNotNull(filterNullKeys));
        this.buildSideLayout = checkNotNull(buildSideLayout);
        checkArgument(
                buildTimeIndex >= 0 && buildTimeIndex < buildType.toRowSize(),
                "The build time index %s is out of range.",
                buildTimeIndex);
        checkArgument(
                buildTimePrecision >= 0 && buildTimePrecision <= 3,
                "The build time precision must be between 0 and 3, but is %s.",
                buildTimePrecision);
        checkArgument(loadCompletedIdleTimeout >= 0, "The idle timeout must not be negative.");
        checkArgument(stateTtl >= 0, "The state TTL must not be negative.");
        this.buildTimeIndex = buildTimeIndex;
        this.buildTimePrecision = buildTimePrecision;
        this.loadCompletedTime = loadCompletedTime;
        this.loadCompletedIdleTimeout = loadCompletedIdleTimeout;
        this.stateTtl = stateTtl;
    }

    /** The positions of the flags that are set. */
    private static int[] positionsOf(boolean[] flags) {
        int[] positions = new int[flags.length];
        int n = 0;
        for (int i = 0; i < flags.length; i++) {
            if (flags[i]) {
                positions[n++] = i;
            }
        }
        return Arrays.copyOf(positions, n);
    }

    /**
     * Runs a projection and filter, generated as Flink generates a {@code Calc}, on every row the
     * join emits, matched or NULL-padded, before the row leaves the operator. The planner sets it
     * when the join's only consumer is such a Calc, so that the joined row reaches the projection
     * as it is instead of being copied field by field into a chained Calc operator first. The
     * join's metrics still count the joined rows. Call it before the operator is serialized.
     */
    public void setFusedCalc(@Nullable GeneratedFunction<FlatMapFunction<RowData, RowData>> calc) {
        this.generatedCalc = calc;
    }

    /**
     * Sets the time budget of a slice of the drain at the flip. Tests use it so that where a slice
     * ends does not depend on the speed of the machine (see {@code LateralSnapshotJoinDrainTest}).
     */
    @VisibleForTesting
    void setDrainSliceNanos(long nanos) {
        checkArgument(nanos >= 0, "The drain slice time must not be negative.");
        this.drainSliceNanos = nanos;
    }

    // ---- what the subclasses decide ----

    /** The logger of the concrete operator, which the log texts are audited under. */
    /** How many buffered rows the drain joins for each probe row that arrives while it runs. */
    static final int DRAIN_ROWS_PER_PROBE_ROW = 2;

    abstract Logger log();

    /** Fails on a restored snapshot whose build side this operator cannot read. */
    abstract void checkRestoredState(OperatorStateStore operatorState);

    /** Registers the operator's own state, after the phase, latest build time and watermark. */
    abstract void initializeBuildAndProbeState(OperatorStateStore operatorState) throws Exception;

    /** Opens what the state and the joiner need; returns the build side the joiner reads. */
    abstract BuildSideState openBuildSide() throws Exception;

    /** Prepares the restored state before anything reads it. */
    abstract void openRestored() throws Exception;

    /** Whether probe rows are buffered, restored or received in the load phase. */
    abstract boolean hasBufferedProbeRows();

    /** Logs the phase the operator starts in and its configuration. */
    abstract void logStart();

    /** Writes what is kept in memory between snapshots into the operator's own state. */
    abstract void snapshotBuildAndProbeState() throws Exception;

    /** Handles a probe row that needs no restored rows drained first. */
    abstract void processProbeRow(RowData probeRow) throws Exception;

    /**
     * Makes the key of a build change current for {@link #takeHeldUpdateBefores} and {@link
     * #holdUpdateBefore(long, long, RowData)}, and keeps it alive in the join phase under a state
     * TTL. Returns false when a NULL in the key never matches.
     */
    abstract boolean enterBuildKey(RowData change) throws Exception;

    /** Takes the held -U rows of the current build key. */
    abstract List<RowData> takeHeldUpdateBefores() throws Exception;

    /** Holds a -U of the current build key until a build watermark reaches {@code releaseAt}. */
    abstract void holdUpdateBefore(long time, long releaseAt, RowData updateBefore)
            throws Exception;

    /** Keeps a change until the build watermark reaches its time. */
    abstract void addPendingChange(long time, RowData change) throws Exception;

    /** Applies the pending changes up to a build time, in time order. */
    abstract void applyChangesUpTo(long time) throws Exception;

    /** Applies a build change to the build side. */
    abstract void apply(RowData change) throws Exception;

    /** Starts the TTL clocks of all keys with build rows; nothing without a state TTL. */
    abstract void startTtlClocks() throws Exception;

    /** Logs the flip to the join phase. */
    abstract void logFlip(String reason);

    /** Collects the buffered probe rows the drain joins, and their keys. */
    abstract void startDrainingRows() throws Exception;

    /**
     * Joins buffered probe rows until a budget of rows or of nanoseconds is spent, at least one.
     * Returns whether none is left.
     */
    abstract boolean drain(long budget, long nanos) throws Exception;

    /** Forgets the keys of the drain once it is done. */
    abstract void clearDrainingKeys();

    // ---- lifecycle ----

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        OperatorStateStore operatorState = context.getOperatorStateStore();
        restored = context.isRestored();
        if (restored) {
            checkRestoredState(operatorState);
        }
        phaseState = new UnionPhaseState(operatorState);
        // Subtasks differ in phase only around the flip, which all of them reach from the same
        // build watermark. Going back to loading could wait forever for a watermark that was
        // already seen, so the join phase wins and the rows buffered by a loading subtask are
        // joined right after the restore.
        joinPhase = phaseState.restoredAnyJoinPhase();
        phaseState.update(joinPhase);
        maxBuildTimeState =
                new UnionLongState(operatorState, LateralSnapshotJoinOperator.MAX_BUILD_TIME_STATE);
        maxBuildTime = maxBuildTimeState.max(Long.MIN_VALUE);
        buildWatermarkState =
                new UnionLongState(
                        operatorState, LateralSnapshotJoinOperator.BUILD_WATERMARK_STATE);
        restoredBuildWatermark = buildWatermarkState.max(Long.MIN_VALUE);
        initializeBuildAndProbeState(operatorState);
    }

    @Override
    public void open() throws Exception {
        super.open();
        BuildSideState buildSide = openBuildSide();
        if (generatedCondition != null) {
            condition =
                    generatedCondition.newInstance(getRuntimeContext().getUserCodeClassLoader());
            condition.setRuntimeContext(getRuntimeContext());
            condition.open(DefaultOpenContext.INSTANCE);
        }
        // Output rows carry their time in the probe's time attribute columns; a record timestamp
        // would only be set for rows joined in the join phase, so none is set at all.
        TimestampedCollector<RowData> collector = new TimestampedCollector<>(output);
        collector.eraseTimestamp();
        MetricGroup metrics = getRuntimeContext().getMetricGroup();
        joiner =
                new ProbeRowJoiner(
                        condition,
                        leftOuterJoin,
                        buildSide,
                        buildType.toRowSize(),
                        generatedCalc == null ? collector : openCalc(collector),
                        metrics);
        buildWatermark = Long.MIN_VALUE;
        probeWatermark = Long.MIN_VALUE;
        idleClock =
                new BuildIdleClock(
                        getProcessingTimeService(),
                        loadCompletedIdleTimeout,
                        () -> joinPhase,
                        this::flipToJoinPhase);
        appliedAtFlip = Long.MIN_VALUE;
        startTime = getProcessingTimeService().getCurrentProcessingTime();

        if (restored) {
            openRestored();
            // Probe rows restored in the join phase come from a subtask that was still loading.
            // Ask the buffer, not the restored phases, for the same reason.
            restoredProbeRowsToDrain = joinPhase && hasBufferedProbeRows();
        }
        registerMetrics(metrics);

        if (restoredProbeRowsToDrain) {
            getProcessingTimeService()
                    .registerTimer(
                            startTime,
                            time -> {
                                if (restoredProbeRowsToDrain) {
                                    drainRestoredProbeRows();
                                }
                            });
        }
        logStart();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        maxBuildTimeState.update(maxBuildTime);
        // What a restore releases before it joins probe rows of a loading subtask: everything
        // this subtask had applied, also without a watermark.
        buildWatermarkState.update(
                Math.max(Math.max(buildWatermark, appliedAtFlip), restoredBuildWatermark));
        snapshotBuildAndProbeState();
    }

    /** Opens the fused calc; returns the collector that passes each joined row through it. */
    private Collector<RowData> openCalc(Collector<RowData> collector) throws Exception {
        FlatMapFunction<RowData, RowData> function =
                generatedCalc.newInstance(getRuntimeContext().getUserCodeClassLoader());
        FunctionUtils.setFunctionRuntimeContext(function, getRuntimeContext());
        FunctionUtils.openFunction(function, DefaultOpenContext.INSTANCE);
        calc = function;
        return new CalcCollector(function, collector);
    }

    @Override
    public void close() throws Exception {
        if (condition != null) {
            condition.close();
        }
        if (calc != null) {
            FunctionUtils.closeFunction(calc);
        }
        super.close();
    }

    private void registerMetrics(MetricGroup group) {
        group.gauge(
                CURRENT_PHASE,
                (Gauge<Integer>)
                        () -> joinPhase ? UnionPhaseState.JOIN_PHASE : UnionPhaseState.LOAD_PHASE);
        group.gauge(NUM_PROBE_SIDE_RECORDS_BUFFERED, (Gauge<Long>) () -> probeRowsBuffered);
        unmatchedBuildRetractions = group.counter(NUM_UNMATCHED_BUILD_RETRACTIONS);
        stateTtlEvictions = group.counter(NUM_STATE_TTL_EVICTIONS);
        group.gauge(CURRENT_BUILD_SIDE_WATERMARK, (Gauge<Long>) () -> buildWatermark);
        group.gauge(CURRENT_PROBE_SIDE_WATERMARK, (Gauge<Long>) () -> probeWatermark);
        lateBuildRecords = group.counter(NUM_LATE_BUILD_SIDE_RECORDS);
        buildChangesApplied = group.counter(NUM_BUILD_SIDE_CHANGES_APPLIED);
        group.gauge(
                LOAD_PHASE_DURATION,
                (Gauge<Long>)
                        () ->
                                joinPhase
                                        ? loadPhaseDuration
                                        : getProcessingTimeService().getCurrentProcessingTime()
                                                - startTime);
    }

    // ---- phases ----

    private void flipToJoinPhase(String reason) throws Exception {
        if (buildWatermark == Long.MIN_VALUE && maxBuildTime != Long.MIN_VALUE) {
            // No watermark will say when the build side is loaded, and the idle timeout says it
            // is: what it sent is the loaded build side, applied in time order.
            appliedAtFlip = maxBuildTime;
            applyChangesUpTo(maxBuildTime);
        }
        joinPhase = true;
        phaseState.update(joinPhase);
        loadPhaseDuration = getProcessingTimeService().getCurrentProcessingTime() - startTime;
        startTtlClocks();
        logFlip(reason);
        startDrain();
        drainSlice();
    }

    // ---- the drain ----

    /**
     * Starts to join the buffered probe rows: a first slice at once, the others each from a timer,
     * so that between two slices the task goes on with its input, checkpoint barriers included, and
     * with its mails, a cancellation included. A checkpoint taken between two slices keeps the rows
     * not joined yet, and a restore joins them. Until the last buffered row is out, the probe
     * watermark and idle status are held back; a probe row whose key still has buffered rows waits
     * behind them, and one of any other key is joined at once.
     */
    private void startDrain() throws Exception {
        startDrainingRows();
        draining = true;
        drainStart = getProcessingTimeService().getCurrentProcessingTime();
        drainedRows = 0;
    }

    private void drainSlice() throws Exception {
        if (!draining) {
            // finish() joined the rest.
            return;
        }
        if (drain(LateralSnapshotJoinOperator.DRAIN_SLICE_ROWS, drainSliceNanos)) {
            finishDrain();
        } else {
            // A timer due now fires through the mailbox after the input it has queued meanwhile.
            getProcessingTimeService()
                    .registerTimer(
                            getProcessingTimeService().getCurrentProcessingTime(),
                            time -> drainSlice());
        }
    }

    /**
     * Counts a buffered probe row that the drain joined, given the joiner's rows emitted before;
     * returns the budget it spent: its output rows, and at least one.
     */
    final long countDrained(long emittedBefore) {
        drainedRows++;
        // Rows restored from a snapshot were not counted.
        if (probeRowsBuffered > 0) {
            probeRowsBuffered--;
        }
        return Math.max(1, joiner.rowsEmitted() - emittedBefore);
    }

    private void finishDrain() {
        draining = false;
        clearDrainingKeys();
        log().info(
                        "LATERAL SNAPSHOT join joined {} buffered probe rows in {} ms.",
                        drainedRows,
                        getProcessingTimeService().getCurrentProcessingTime() - drainStart);
        if (probeWatermark != Long.MIN_VALUE) {
            output.emitWatermark(new Watermark(probeWatermark));
        }
        // An idle output would drop the watermark: rows, watermark, then the idle status.
        if (probeIdle) {
            output.emitWatermarkStatus(WatermarkStatus.IDLE);
        }
    }

    private void drainRestoredProbeRows() throws Exception {
        startRestoredDrain();
        drainSlice();
    }

    private void startRestoredDrain() throws Exception {
        restoredProbeRowsToDrain = false;
        // The subtask that had flipped had applied the changes up to this build watermark, and
        // every subtask gets the same one from the build input: the changes it releases here are
        // part of the loaded build side that a flip would have joined these rows against.
        if (restoredBuildWatermark > buildWatermark) {
            applyChangesUpTo(restoredBuildWatermark);
        }
        log().info(
                        "LATERAL SNAPSHOT join restored in the join phase, with probe rows that a"
                                + " loading subtask had buffered.");
        startDrain();
    }

    @Override
    public void finish() throws Exception {
        // The input has ended, and the timers of the next slices would not fire any more.
        if (restoredProbeRowsToDrain) {
            startRestoredDrain();
        }
        if (draining) {
            drain(Long.MAX_VALUE, Long.MAX_VALUE);
            finishDrain();
        }
        super.finish();
    }

    // ---- probe side ----

    @Override
    public void processElement1(StreamRecord<RowData> record) throws Exception {
        if (restoredProbeRowsToDrain) {
            drainRestoredProbeRows();
        }
        processProbeRow(record.getValue());
        if (draining) {
            keepDrainAheadOfInput();
        }
    }

    /**
     * Joins {@link #DRAIN_ROWS_PER_PROBE_ROW} buffered rows for a probe row that arrived during the
     * drain. The slices run only between input rows; without this, a probe source faster than the
     * join (a join with a costly condition, say) would fill the buffer of a key being drained
     * without end, instead of being slowed down by backpressure. So the buffer shrinks with every
     * probe row taken in, and the input goes at the pace of the join.
     */
    private void keepDrainAheadOfInput() throws Exception {
        for (int i = 0; i < DRAIN_ROWS_PER_PROBE_ROW && draining; i++) {
            // A budget of one joins exactly one row.
            if (drain(1, Long.MAX_VALUE)) {
                finishDrain();
            }
        }
    }

    @Override
    public void processWatermark1(Watermark mark) throws Exception {
        if (restoredProbeRowsToDrain) {
            drainRestoredProbeRows();
        }
        probeWatermark = mark.getTimestamp();
        if (joinPhase && !draining) {
            output.emitWatermark(mark);
        }
    }

    @Override
    protected void processWatermarkStatus(WatermarkStatus status, int inputIndex) throws Exception {
        // The output follows the probe side only; the build side's status does not reach it.
        if (inputIndex == 1) {
            if (status.isIdle()) {
                warnIfBuildSideIsIdleFromTheStart();
                idleClock.start();
            }
            return;
        }
        if (probeIdle != status.isIdle()) {
            probeIdle = status.isIdle();
            // Until the drain is done the output holds its watermark back and stays active: an
            // idle output would drop the watermark released after the last buffered row. The end
            // of the drain passes IDLE on.
            if (joinPhase && !draining) {
                output.emitWatermarkStatus(status);
            }
        }
    }

    /** Whether the operator has equality keys in which a NULL never matches. */
    final boolean rejectsNullKeys() {
        return nullRejectingKeyPositions.length > 0;
    }

    /** Whether a NULL in an equality key of {@code key} means that it never matches. */
    final boolean hasNullRejectingKey(RowData key) {
        for (int position : nullRejectingKeyPositions) {
            if (key.isNullAt(position)) {
                return true;
            }
        }
        return false;
    }

    // ---- build side ----

    @Override
    public void processElement2(StreamRecord<RowData> record) throws Exception {
        idleClock.start();
        RowData change = record.getValue();
        if (!enterBuildKey(change)) {
            // Never matches; keeping it would only cost state.
            return;
        }
        if (buildWatermark == Long.MIN_VALUE && !buildWatermarkCheckScheduled) {
            buildWatermarkCheckScheduled = true;
            getProcessingTimeService()
                    .registerTimer(
                            getProcessingTimeService().getCurrentProcessingTime()
                                    + LateralSnapshotJoinOperator
                                            .MISSING_BUILD_WATERMARK_WARNING_DELAY,
                            time -> warnIfBuildWatermarkIsMissing());
        }
        boolean timed = !change.isNullAt(buildTimeIndex);
        long time;
        if (timed) {
            time = timeOf(change);
            maxBuildTime = Math.max(maxBuildTime, time);
        } else {
            // A change without a time (an upsert source's key-only delete, say) comes after
            // every change that arrived before it.
            time = Math.max(maxBuildTime, buildWatermark);
        }
        RowKind kind = change.getRowKind();
        if (kind == RowKind.UPDATE_BEFORE && timed) {
            holdUpdateBefore(time, change);
        } else if (kind == RowKind.UPDATE_AFTER) {
            List<RowData> held = takeHeldUpdateBefores();
            long pairTime = time;
            for (RowData updateBefore : held) {
                pairTime = Math.max(pairTime, timeOf(updateBefore));
            }
            for (RowData updateBefore : held) {
                addPending(pairTime, updateBefore);
            }
            addPending(pairTime, change);
        } else {
            // The held -U rows did not get their +U next: they are applied alone, at their times.
            for (RowData updateBefore : takeHeldUpdateBefores()) {
                addPending(timeOf(updateBefore), updateBefore);
            }
            addPending(time, change);
        }
    }

    @Override
    public void processWatermark2(Watermark mark) throws Exception {
        long watermark = mark.getTimestamp();
        if (watermark <= buildWatermark) {
            return;
        }
        buildWatermark = watermark;
        // All changes the watermark releases are applied here, before the next probe row.
        applyChangesUpTo(watermark);
        if (!joinPhase) {
            if (watermark >= loadCompletedTime) {
                flipToJoinPhase("the build watermark reached the load completed time");
            } else {
                idleClock.restart();
            }
        }
    }

    final long timeOf(RowData change) {
        return change.getTimestamp(buildTimeIndex, buildTimePrecision).getMillisecond();
    }

    /**
     * Adds a change to the pending changes of its time, or applies it at once when the build
     * watermark has already passed that time: every pending change has a later time, so the time
     * order holds. Such an insert or update is counted as late; a retraction is not, because it
     * carries the time of the row it retracts.
     */
    final void addPending(long time, RowData change) throws Exception {
        if (time <= buildWatermark) {
            if (RowDataUtil.isAccumulateMsg(change)) {
                lateBuildRecords.inc();
            }
            apply(change);
            return;
        }
        addPendingChange(time, change);
    }

    /**
     * Holds a -U until the next change of its key: its +U, which it is applied with, or anything
     * else, which lets it go alone. Should nothing come, a watermark lets it go alone once it has
     * passed both the -U's own time and the latest build time seen so far: a watermark goes past
     * the latest time only after a later row, so the +U that follows its -U arrives first. The -U's
     * own time alone would not do: it is the old row's, and right after a restore a watermark that
     * reaches it can come between the -U and its +U. Nor would reaching the latest time: a periodic
     * watermark that equals it can come between them too.
     */
    private void holdUpdateBefore(long time, RowData updateBefore) throws Exception {
        long releaseAt =
                Math.max(time, maxBuildTime == Long.MAX_VALUE ? maxBuildTime : maxBuildTime + 1);
        holdUpdateBefore(time, releaseAt, updateBefore);
    }

    private void warnIfBuildWatermarkIsMissing() {
        if (buildWatermark == Long.MIN_VALUE) {
            LoadPhaseWarnings.warnOfMissingBuildWatermark(
                    log(), joinPhase, loadCompletedIdleTimeout);
        }
    }

    private void warnIfBuildSideIsIdleFromTheStart() {
        if (!joinPhase && loadCompletedIdleTimeout == 0 && !idleClock.isStarted()) {
            LoadPhaseWarnings.warnOfBuildSideIdleFromTheStart(log(), loadCompletedTime);
        }
    }
}
