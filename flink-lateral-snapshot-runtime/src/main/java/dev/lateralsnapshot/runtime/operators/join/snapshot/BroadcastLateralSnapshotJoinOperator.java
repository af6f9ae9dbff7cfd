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
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.ListTypeInfo;
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
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.util.RowDataUtil;
import org.apache.flink.table.runtime.generated.GeneratedJoinCondition;
import org.apache.flink.table.runtime.generated.JoinCondition;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.types.RowKind;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.apache.flink.util.Preconditions.checkArgument;
import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * The LATERAL SNAPSHOT join with a broadcast build side: every subtask receives every build change
 * (input 2) and keeps the whole build side, and joins the probe rows (input 1) that reach it
 * without any partitioning by key. It runs at the probe side's parallelism, with or without an
 * equality predicate, and a hot key loads no subtask more than the others.
 *
 * <p>The semantics are those of {@link LateralSnapshotJoinOperator}, which its class comment gives:
 * the load phase and the flip, the held probe watermark, build changes applied in time order by the
 * build watermark with arrival order kept at equal times, update pairs applied whole, late build
 * changes applied at once and counted, the two {@link BuildSideLayout}s, NULL keys that never
 * match, the drain at the flip in slices, and the metrics, under the same names. A probe row whose
 * key still has rows buffered for the drain waits behind them; a probe row of any other key is
 * joined at once.
 *
 * <p><b>State.</b> The operator is not keyed. The build rows ({@link BroadcastBuildSideState},
 * indexed by the equality keys: a probe row costs one hash lookup), the pending build changes and
 * the held -U rows ({@link BroadcastHeldUpdateBefores}) are broadcast state: a heap map on every
 * state backend, RocksDB included, of which every subtask writes its own copy into each checkpoint,
 * and of which a restore, at any parallelism, gives every subtask one old subtask's copy. That is
 * right because every subtask receives the same build changes and watermarks, and an aligned
 * checkpoint's barrier comes after the same ones on every subtask. The buffered probe rows are
 * operator list state, spread evenly over the subtasks of a restore. The phase, the latest build
 * time and the build watermark are union state as in the keyed join: after a restore the join phase
 * wins, and rows restored from a subtask that was still loading are joined once the build changes
 * up to the highest build watermark of the snapshot are applied.
 *
 * <p><b>Sizing.</b> The build side is held on the heap once per subtask, whatever the state
 * backend: rows times parallelism in all, and as much written into every checkpoint. A warning is
 * logged once when a subtask's build side passes {@code buildRowsWarningThreshold} rows.
 *
 * <p><b>State TTL</b> is kept per subtask: a build key is evicted from a subtask's copy when no
 * probe row that reached this subtask, and no build change, has accessed it for the TTL. A key
 * evicted on one subtask may thus still be present on another, where it keeps matching. The times
 * of the accesses are not checkpointed: after a restore every key's clock starts from the restore.
 */
public class BroadcastLateralSnapshotJoinOperator extends AbstractStreamOperator<RowData>
        implements TwoInputStreamOperator<RowData, RowData, RowData> {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG =
            LoggerFactory.getLogger(BroadcastLateralSnapshotJoinOperator.class);

    /** The option that sets {@code buildRowsWarningThreshold}, named in the warning. */
    static final String BUILD_ROWS_WARNING_THRESHOLD_OPTION =
            "table.exec.lateral-snapshot.broadcast.build-rows-warning-threshold";

    // ---- state names, frozen: savepoints depend on them ----
    // The build rows and held -U rows are named by their classes; the phase, the latest build time
    // and the build watermark keep the names of the keyed join's.

    static final String PENDING_BUILD_CHANGES_STATE = "broadcast-pending-build-changes";
    static final String PROBE_BUFFER_STATE = "broadcast-probe-buffer";

    // ---- configuration ----

    private final InternalTypeInfo<RowData> probeType;
    private final InternalTypeInfo<RowData> buildType;
    private final RowDataKeySelector probeKeySelector;
    private final RowDataKeySelector buildKeySelector;
    @Nullable private final GeneratedJoinCondition generatedCondition;
    private final boolean leftOuterJoin;
    private final int[] nullRejectingKeyPositions;
    private final BuildSideLayout buildSideLayout;
    private final int buildTimeIndex;
    private final int buildTimePrecision;
    private final long loadCompletedTime;
    private final long loadCompletedIdleTimeout;
    private final long stateTtl;
    private final long buildRowsWarningThreshold;

    // ---- state ----

    private transient UnionPhaseState phaseState;
    private transient UnionLongState maxBuildTimeState;
    private transient UnionLongState buildWatermarkState;
    private transient ListState<RowData> probeBufferState;
    private transient BroadcastState<Long, List<RowData>> pendingChangesState;
    private transient BroadcastBuildSideState buildSide;
    private transient BroadcastHeldUpdateBefores heldUpdateBefores;

    /** The highest build watermark any subtask had reached when the restored snapshot was taken. */
    private transient long restoredBuildWatermark;

    private transient boolean restored;
    private transient boolean joinPhase;
    private transient boolean restoredProbeRowsToDrain;

    /** Build changes by time, each time's in arrival order; written to state by a snapshot. */
    private transient TreeMap<Long, List<RowData>> pendingChanges;

    /**
     * The buffered probe rows in arrival order; those before {@link #drainPosition} are joined.
     * Written to state by a snapshot.
     */
    private transient ArrayList<RowData> probeBuffer;

    private transient int drainPosition;
    @Nullable private transient BroadcastStateTtl ttl;

    // ---- runtime ----

    @Nullable private transient JoinCondition condition;
    private transient TimestampedCollector<RowData> collector;
    private transient ProbeRowJoiner joiner;
    private transient RowDataSerializer probeKeySerializer;
    private transient RowDataSerializer buildKeySerializer;
    private transient long buildWatermark;
    private transient long maxBuildTime;
    private transient long probeWatermark;
    private transient boolean probeIdle;

    private transient BuildIdleClock idleClock;

    /** The build time up to which a flip without any build watermark applied the changes. */
    private transient long appliedAtFlip;

    private transient long startTime;
    private transient long loadPhaseDuration;
    private transient boolean buildWatermarkCheckScheduled;
    private transient boolean buildRowsWarningLogged;

    // ---- the drain at the flip ----

    private transient boolean draining;

    /** Per key, the buffered probe rows the drain has not joined yet. */
    @Nullable private transient Map<RowData, Integer> rowsToDrainByKey;

    private transient long drainStart;
    private transient long drainedRows;

    // ---- metric values ----

    private transient long probeRowsBuffered;
    private transient Counter unmatchedBuildRetractions;
    private transient Counter stateTtlEvictions;
    private transient Counter lateBuildRecords;
    private transient Counter buildChangesApplied;

    /**
     * @param probeType type of the probe (left) rows
     * @param buildType type of the build (right) rows
     * @param probeKeySelector the equality keys of a probe row; a selector of the empty key without
     *     equality predicate
     * @param buildKeySelector the equality keys of a build row, in the order of the probe's
     * @param generatedCondition the non-equality conjuncts of the join condition; null when the
     *     condition has only equality conjuncts
     * @param leftOuterJoin whether unmatched probe rows are emitted padded with nulls
     * @param filterNullKeys per equality key, whether a NULL in it never matches (true for {@code
     *     =}, false for {@code IS NOT DISTINCT FROM}); empty without equality keys
     * @param buildSideLayout how build rows are kept, see {@link BuildSideLayout}
     * @param buildTimeIndex position of the {@code on_time} column in the build rows
     * @param buildTimePrecision precision of the {@code on_time} column (at most 3)
     * @param loadCompletedTime epoch millis; the load phase ends when the build watermark reaches
     *     it
     * @param loadCompletedIdleTimeout millis; the load phase also ends when the build watermark has
     *     not advanced for this long; 0 for none
     * @param stateTtl millis; build keys that no probe row of this subtask and no build change
     *     accessed for this long are evicted from this subtask's build side in the join phase; 0 to
     *     keep them forever
     * @param buildRowsWarningThreshold a warning is logged once when this subtask's build side
     *     holds more rows; 0 for never
     */
    public BroadcastLateralSnapshotJoinOperator(
            InternalTypeInfo<RowData> probeType,
            InternalTypeInfo<RowData> buildType,
            RowDataKeySelector probeKeySelector,
            RowDataKeySelector buildKeySelector,
            @Nullable GeneratedJoinCondition generatedCondition,
            boolean leftOuterJoin,
            boolean[] filterNullKeys,
            BuildSideLayout buildSideLayout,
            int buildTimeIndex,
            int buildTimePrecision,
            long loadCompletedTime,
            long loadCompletedIdleTimeout,
            long stateTtl,
            long buildRowsWarningThreshold) {
        this.probeType = checkNotNull(probeType);
        this.buildType = checkNotNull(buildType);
        this.probeKeySelector = checkNotNull(probeKeySelector);
        this.buildKeySelector = checkNotNull(buildKeySelector);
        this.generatedCondition = generatedCondition;
        this.leftOuterJoin = leftOuterJoin;
        this.nullRejectingKeyPositions =
                LateralSnapshotJoinOperator.positionsOf(checkNotNull(filterNullKeys));
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
        checkArgument(
                buildRowsWarningThreshold >= 0,
                "The build rows warning threshold must not be negative.");
        this.buildTimeIndex = buildTimeIndex;
        this.buildTimePrecision = buildTimePrecision;
        this.loadCompletedTime = loadCompletedTime;
        this.loadCompletedIdleTimeout = loadCompletedIdleTimeout;
        this.stateTtl = stateTtl;
        this.buildRowsWarningThreshold = buildRowsWarningThreshold;
    }

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
        // The join phase wins, for the reason the keyed join gives.
        joinPhase = phaseState.restoredAnyJoinPhase();
        phaseState.update(joinPhase);
        maxBuildTimeState =
                new UnionLongState(operatorState, LateralSnapshotJoinOperator.MAX_BUILD_TIME_STATE);
        maxBuildTime = maxBuildTimeState.max(Long.MIN_VALUE);
        buildWatermarkState =
                new UnionLongState(
                        operatorState, LateralSnapshotJoinOperator.BUILD_WATERMARK_STATE);
        restoredBuildWatermark = buildWatermarkState.max(Long.MIN_VALUE);

        probeBufferState =
                operatorState.getListState(
                        new ListStateDescriptor<>(PROBE_BUFFER_STATE, probeType));
        probeBuffer = new ArrayList<>();
        for (RowData probeRow : probeBufferState.get()) {
            probeBuffer.add(probeRow);
        }
        InternalTypeInfo<RowData> keyType = buildKeySelector.getProducedType();
        buildSide =
                BroadcastBuildSideState.create(buildSideLayout, operatorState, keyType, buildType);
        heldUpdateBefores = new BroadcastHeldUpdateBefores(operatorState, keyType, buildType);
        pendingChangesState =
                operatorState.getBroadcastState(
                        new MapStateDescriptor<>(
                                PENDING_BUILD_CHANGES_STATE,
                                Types.LONG,
                                new ListTypeInfo<>(buildType)));
        pendingChanges = new TreeMap<>();
        for (Map.Entry<Long, List<RowData>> entry : pendingChangesState.entries()) {
            pendingChanges.put(entry.getKey(), new ArrayList<>(entry.getValue()));
        }
    }

    /**
     * Fails on a snapshot that keeps the build side otherwise than this job: taken by the keyed
     * join, whose build side this operator cannot read and would start the join phase without, or
     * in the other layout.
     */
    private void checkRestoredState(OperatorStateStore operatorState) {
        if (operatorState.getRegisteredStateNames().contains(ProbeBuffer.SEQUENCE_STATE)) {
            throw new IllegalStateException(
                    "The LATERAL SNAPSHOT join cannot restore its build side: the savepoint was"
                            + " taken by a join that partitions both inputs by the join keys"
                            + " ('table.exec.lateral-snapshot.build-distribution' = 'hash'), but"
                            + " this job broadcasts the build side. Restore with the build-side"
                            + " distribution of the job that took the savepoint.");
        }
        String other = BroadcastBuildSideState.otherLayoutStateName(buildSideLayout);
        if (operatorState.getRegisteredBroadcastStateNames().contains(other)) {
            throw new IllegalStateException(
                    "The LATERAL SNAPSHOT join cannot restore its build side: the savepoint keeps"
                            + " it in state '"
                            + other
                            + "', but this job keeps it as "
                            + buildSideLayout
                            + ". This happens when a unique key of the build input changed."
                            + " Restore with the build input of the job that took the savepoint.");
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        if (generatedCondition != null) {
            condition =
                    generatedCondition.newInstance(getRuntimeContext().getUserCodeClassLoader());
            condition.setRuntimeContext(getRuntimeContext());
            condition.open(DefaultOpenContext.INSTANCE);
        }
        // No record timestamp, for the reason the keyed join gives.
        collector = new TimestampedCollector<>(output);
        collector.eraseTimestamp();
        MetricGroup metrics = getRuntimeContext().getMetricGroup();
        joiner =
                new ProbeRowJoiner(
                        condition,
                        leftOuterJoin,
                        buildSide,
                        buildType.toRowSize(),
                        collector,
                        metrics);
        probeKeySerializer = probeKeySelector.getProducedType().toRowSerializer();
        buildKeySerializer = buildKeySelector.getProducedType().toRowSerializer();
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
        if (stateTtl > 0) {
            ttl = new BroadcastStateTtl(stateTtl, getProcessingTimeService(), this::evict);
        }
        registerMetrics(metrics);

        if (restored) {
            buildSide.countRestored();
            heldUpdateBefores.countRestored();
            if (joinPhase && ttl != null) {
                startTtlClocks();
            }
            warnIfBuildSideIsLarge();
            // Probe rows restored in the join phase come from a subtask that was still loading.
            restoredProbeRowsToDrain = joinPhase && !probeBuffer.isEmpty();
        }
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
        LOG.info(
                "LATERAL SNAPSHOT join with a broadcast build side starts in the {} phase (load"
                        + " completed time {}, idle timeout {} ms, state TTL {} ms, build side kept"
                        + " as {}, {} build rows).",
                joinPhase ? "join" : "load",
                loadCompletedTime,
                loadCompletedIdleTimeout,
                stateTtl,
                buildSideLayout,
                buildSide.rowCount());
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        maxBuildTimeState.update(maxBuildTime);
        // What a restore releases before it joins probe rows of a loading subtask: everything
        // this subtask had applied, also without a watermark.
        buildWatermarkState.update(
                Math.max(Math.max(buildWatermark, appliedAtFlip), restoredBuildWatermark));
        probeBufferState.update(probeBuffer.subList(drainPosition, probeBuffer.size()));
        pendingChangesState.clear();
        for (Map.Entry<Long, List<RowData>> entry : pendingChanges.entrySet()) {
            pendingChangesState.put(entry.getKey(), entry.getValue());
        }
    }

    @Override
    public void close() throws Exception {
        if (condition != null) {
            condition.close();
        }
        super.close();
    }

    private void registerMetrics(MetricGroup group) {
        group.gauge(
                LateralSnapshotJoinOperator.CURRENT_PHASE,
                (Gauge<Integer>)
                        () -> joinPhase ? UnionPhaseState.JOIN_PHASE : UnionPhaseState.LOAD_PHASE);
        group.gauge(
                LateralSnapshotJoinOperator.NUM_PROBE_SIDE_RECORDS_BUFFERED,
                (Gauge<Long>) () -> probeRowsBuffered);
        unmatchedBuildRetractions =
                group.counter(LateralSnapshotJoinOperator.NUM_UNMATCHED_BUILD_RETRACTIONS);
        stateTtlEvictions = group.counter(LateralSnapshotJoinOperator.NUM_STATE_TTL_EVICTIONS);
        group.gauge(
                LateralSnapshotJoinOperator.CURRENT_BUILD_SIDE_WATERMARK,
                (Gauge<Long>) () -> buildWatermark);
        group.gauge(
                LateralSnapshotJoinOperator.CURRENT_PROBE_SIDE_WATERMARK,
                (Gauge<Long>) () -> probeWatermark);
        lateBuildRecords = group.counter(LateralSnapshotJoinOperator.NUM_LATE_BUILD_SIDE_RECORDS);
        buildChangesApplied =
                group.counter(LateralSnapshotJoinOperator.NUM_BUILD_SIDE_CHANGES_APPLIED);
        group.gauge(
                LateralSnapshotJoinOperator.LOAD_PHASE_DURATION,
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
            applyPendingChanges(maxBuildTime);
        }
        joinPhase = true;
        phaseState.update(joinPhase);
        loadPhaseDuration = getProcessingTimeService().getCurrentProcessingTime() - startTime;
        if (ttl != null) {
            startTtlClocks();
        }
        LOG.info(
                "LATERAL SNAPSHOT join switches to the join phase after {} ms because {}. Build"
                        + " watermark {}, probe watermark {}, {} build rows.",
                loadPhaseDuration,
                reason,
                buildWatermark,
                probeWatermark,
                buildSide.rowCount());
        startDrain();
        drainSlice();
    }

    private void startTtlClocks() throws Exception {
        for (RowData key : buildSide.keys()) {
            ttl.start(key);
        }
    }

    // ---- the drain ----

    /**
     * Starts to join the buffered probe rows in slices, as the keyed join does (see {@code
     * LateralSnapshotJoinOperator#startDrain}): until the last one is out the probe watermark and
     * idle status are held back, and a probe row whose key still has buffered rows waits behind
     * them.
     */
    private void startDrain() throws Exception {
        rowsToDrainByKey = new HashMap<>();
        for (int i = drainPosition; i < probeBuffer.size(); i++) {
            rowsToDrainByKey.merge(probeKey(probeBuffer.get(i)), 1, Integer::sum);
        }
        draining = true;
        drainStart = getProcessingTimeService().getCurrentProcessingTime();
        drainedRows = 0;
    }

    private void drainSlice() throws Exception {
        if (!draining) {
            // finish() joined the rest.
            return;
        }
        if (drain(
                LateralSnapshotJoinOperator.DRAIN_SLICE_ROWS,
                LateralSnapshotJoinOperator.DRAIN_SLICE_NANOS)) {
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
     * Joins buffered probe rows until a budget of rows or of nanoseconds is spent, at least one: a
     * probe row counts its output rows and at least one. Returns whether none is left.
     */
    private boolean drain(long budget, long nanos) throws Exception {
        long start = System.nanoTime();
        long spent = 0;
        while (drainPosition < probeBuffer.size()) {
            RowData probeRow = probeBuffer.set(drainPosition++, null);
            RowData key = probeKey(probeRow);
            rowsToDrainByKey.computeIfPresent(key, (k, rows) -> rows == 1 ? null : rows - 1);
            long emitted = joiner.rowsEmitted();
            joinProbeRow(key, probeRow);
            spent += Math.max(1, joiner.rowsEmitted() - emitted);
            drainedRows++;
            // Rows restored from a snapshot were not counted.
            if (probeRowsBuffered > 0) {
                probeRowsBuffered--;
            }
            if (spent >= budget || System.nanoTime() - start >= nanos) {
                return drainPosition == probeBuffer.size() && clearProbeBuffer();
            }
        }
        return clearProbeBuffer();
    }

    private boolean clearProbeBuffer() {
        probeBuffer.clear();
        probeBuffer.trimToSize();
        drainPosition = 0;
        return true;
    }

    private void finishDrain() {
        draining = false;
        rowsToDrainByKey = null;
        LOG.info(
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
        // The subtask that had flipped had applied the changes up to this build watermark: they
        // are part of the loaded build side that a flip would have joined these rows against.
        if (restoredBuildWatermark > buildWatermark) {
            applyPendingChanges(restoredBuildWatermark);
        }
        LOG.info(
                "LATERAL SNAPSHOT join restored in the join phase, with probe rows that a loading"
                        + " subtask had buffered.");
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
        RowData probeRow = record.getValue();
        if (!joinPhase) {
            probeBuffer.add(probeRow);
            probeRowsBuffered++;
            return;
        }
        RowData key = probeKey(probeRow);
        if (draining && rowsToDrainByKey.containsKey(key)) {
            probeBuffer.add(probeRow);
            rowsToDrainByKey.merge(key, 1, Integer::sum);
            probeRowsBuffered++;
            return;
        }
        joinProbeRow(key, probeRow);
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
                if (!joinPhase && loadCompletedIdleTimeout == 0 && !idleClock.isStarted()) {
                    LoadPhaseWarnings.warnOfBuildSideIdleFromTheStart(LOG, loadCompletedTime);
                }
                idleClock.start();
            }
            return;
        }
        if (probeIdle != status.isIdle()) {
            probeIdle = status.isIdle();
            // Held back until the drain is done, which passes IDLE on.
            if (joinPhase && !draining) {
                output.emitWatermarkStatus(status);
            }
        }
    }

    /** Joins one probe row against the current build rows of its key and emits. */
    private void joinProbeRow(RowData key, RowData probeRow) throws Exception {
        if (hasNullRejectingKey(key)) {
            joiner.join(probeRow, false);
            return;
        }
        buildSide.setCurrentKey(key);
        if (joiner.join(probeRow, true) && ttl != null) {
            // A probe row that finds build rows keeps their key from expiring.
            ttl.touch(key);
        }
    }

    private boolean hasNullRejectingKey(RowData key) {
        for (int position : nullRejectingKeyPositions) {
            if (key.isNullAt(position)) {
                return true;
            }
        }
        return false;
    }

    private RowData probeKey(RowData probeRow) throws Exception {
        return binaryKey(probeKeySelector.getKey(probeRow), probeKeySerializer);
    }

    private RowData buildKey(RowData buildRow) throws Exception {
        return binaryKey(buildKeySelector.getKey(buildRow), buildKeySerializer);
    }

    /**
     * Keys are looked up in hash maps, and restored keys are binary rows: only equal forms hash
     * alike. The planner's selectors return fresh binary rows already.
     */
    private static RowData binaryKey(RowData key, RowDataSerializer serializer) {
        return key instanceof BinaryRowData ? key : serializer.toBinaryRow(key).copy();
    }

    // ---- build side ----

    @Override
    public void processElement2(StreamRecord<RowData> record) throws Exception {
        idleClock.start();
        RowData change = record.getValue();
        RowData key = buildKey(change);
        if (hasNullRejectingKey(key)) {
            // Never matches; keeping it would only cost state.
            return;
        }
        if (ttl != null && joinPhase) {
            // A build change keeps its key alive, as a write does in Flink's state TTL.
            ttl.touch(key);
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
            // A change without a time comes after every change that arrived before it.
            time = Math.max(maxBuildTime, buildWatermark);
        }
        RowKind kind = change.getRowKind();
        if (kind == RowKind.UPDATE_BEFORE && timed) {
            holdUpdateBefore(key, time, change);
        } else if (kind == RowKind.UPDATE_AFTER) {
            List<RowData> held = heldUpdateBefores.takeAll(key);
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
            for (RowData updateBefore : heldUpdateBefores.takeAll(key)) {
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
        // Everything the watermark releases is applied here, before the next probe row.
        applyPendingChanges(watermark);
        if (!joinPhase) {
            if (watermark >= loadCompletedTime) {
                flipToJoinPhase("the build watermark reached the load completed time");
            } else {
                idleClock.restart();
            }
        }
    }

    private long timeOf(RowData change) {
        return change.getTimestamp(buildTimeIndex, buildTimePrecision).getMillisecond();
    }

    /**
     * Adds a change to the pending changes of its time, or applies it at once when the build
     * watermark has already passed that time, as the keyed join does.
     */
    private void addPending(long time, RowData change) throws Exception {
        if (time <= buildWatermark) {
            if (RowDataUtil.isAccumulateMsg(change)) {
                lateBuildRecords.inc();
            }
            apply(change);
            return;
        }
        pendingChanges.computeIfAbsent(time, t -> new ArrayList<>()).add(change);
    }

    /**
     * Applies the pending changes up to a build time in time order, then lets the held -U rows go
     * alone that the time lets go. A held -U has no change of its key after it, and none before it
     * with a later time than the one that lets it go, so applying it after the others keeps the
     * order of its key's changes.
     */
    private void applyPendingChanges(long upTo) throws Exception {
        while (!pendingChanges.isEmpty() && pendingChanges.firstKey() <= upTo) {
            for (RowData change : pendingChanges.pollFirstEntry().getValue()) {
                apply(change);
            }
        }
        for (RowData updateBefore : heldUpdateBefores.takeReleased(upTo)) {
            addPending(timeOf(updateBefore), updateBefore);
        }
    }

    /** Holds a -U until the next change of its key, by the rules the keyed join gives. */
    private void holdUpdateBefore(RowData key, long time, RowData updateBefore) throws Exception {
        long releaseAt =
                Math.max(time, maxBuildTime == Long.MAX_VALUE ? maxBuildTime : maxBuildTime + 1);
        heldUpdateBefores.hold(key, time, releaseAt, updateBefore);
    }

    private void apply(RowData change) throws Exception {
        RowData key = buildKey(change);
        buildSide.setCurrentKey(key);
        RowKind kind = change.getRowKind();
        change.setRowKind(RowKind.INSERT);
        if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER) {
            if (ttl != null && joinPhase && !ttl.isRunning(key)) {
                ttl.start(key);
            }
            buildSide.add(change);
            warnIfBuildSideIsLarge();
        } else if (!buildSide.retract(change)) {
            unmatchedBuildRetractions.inc();
        }
        buildChangesApplied.inc();
    }

    /** Evicts the build rows of a key whose TTL clock expired. */
    private void evict(RowData key) throws Exception {
        buildSide.setCurrentKey(key);
        if (!buildSide.isEmpty()) {
            buildSide.clear();
            stateTtlEvictions.inc();
        }
    }

    private void warnIfBuildWatermarkIsMissing() {
        if (buildWatermark == Long.MIN_VALUE) {
            LoadPhaseWarnings.warnOfMissingBuildWatermark(LOG, joinPhase, loadCompletedIdleTimeout);
        }
    }

    /** The build rows this subtask holds, every occurrence counted. */
    @VisibleForTesting
    long buildSideRows() {
        return buildSide.rowCount();
    }

    /**
     * Every subtask holds the whole build side on the heap and writes it into every checkpoint: a
     * build side that outgrows what was planned for shows here first.
     */
    private void warnIfBuildSideIsLarge() {
        if (buildRowsWarningThreshold > 0
                && !buildRowsWarningLogged
                && buildSide.rowCount() > buildRowsWarningThreshold) {
            buildRowsWarningLogged = true;
            int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
            LOG.warn(
                    "The broadcast build side of the LATERAL SNAPSHOT join holds {} rows in this"
                            + " subtask, more than the {} of '{}'. Every one of the {} subtasks"
                            + " keeps the whole build side on the heap, whatever the state"
                            + " backend, and writes it into every checkpoint. For a build side"
                            + " this large set 'table.exec.lateral-snapshot.build-distribution' ="
                            + " 'hash', or raise the threshold.",
                    buildSide.rowCount(),
                    buildRowsWarningThreshold,
                    BUILD_ROWS_WARNING_THRESHOLD_OPTION,
                    parallelism);
        }
    }
}
