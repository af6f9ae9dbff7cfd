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
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.StateBackendLoader;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.internal.InternalListState;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.util.RowDataUtil;
import org.apache.flink.table.runtime.generated.GeneratedJoinCondition;
import org.apache.flink.table.runtime.generated.JoinCondition;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.types.RowKind;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.apache.flink.util.Preconditions.checkArgument;
import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * The LATERAL SNAPSHOT join: joins every row of an append-only probe input (input 1) once, at once,
 * with the build rows (input 2) that are current at that moment, and never revises a result.
 *
 * <p>The operator runs in two phases:
 *
 * <ul>
 *   <li><b>Load phase.</b> Build changes are collected; probe rows are buffered in keyed state and
 *       nothing is emitted. The probe watermark is held back. The load ends when the build
 *       watermark reaches {@code loadCompletedTime}, or, when an idle timeout is set, when the
 *       build watermark has not advanced for that long in processing time. The clock starts with
 *       the first build record, watermark or idle status, so that an empty build side that Flink
 *       marks idle flips too, and is re-armed by every advance of the build watermark.
 *   <li><b>Join phase.</b> At the flip the buffered probe rows are joined and emitted, in slices
 *       between which the task takes its input, checkpoints and cancellation; then the held probe
 *       watermark is released. A flip that comes before any build watermark first applies every
 *       build change received so far, in time order. From then on each probe row is joined
 *       immediately, unless its key still has buffered rows: it then waits behind them. The output
 *       is insert-only.
 * </ul>
 *
 * <p><b>Build changes</b> are held in keyed state until the build watermark reaches their time (the
 * {@code on_time} column) and are then applied in time order; changes with equal times keep their
 * arrival order. Everything one watermark releases is applied before the next probe row, so a probe
 * row sees an update either not at all or whole. An update pair (a -U followed by its +U on the
 * same join key) is applied as one change at the time of its +U: the -U carries the old row's time,
 * and applying it alone would leave the key without a row until the +U's time. A -U whose +U does
 * not come (an update that changes the join key sends it elsewhere) is applied alone when the next
 * change of its key arrives, or when the watermark has reached its own time and gone past the
 * latest build time seen when it arrived. A change that arrives when the watermark has already
 * passed its time is applied at once (every pending change has a later time); such an insert or
 * update is late and counted in {@link #NUM_LATE_BUILD_SIDE_RECORDS} (a retraction is not: it
 * carries the time of the row it retracts). A change without a time (the key-only delete of an
 * upsert source, say) is ordered after every change that arrived before it.
 *
 * <p><b>Watermarks.</b> The output watermark is the probe watermark, forwarded only in the join
 * phase. The build watermark drives the application of build changes and the flip and is never
 * forwarded; neither is the build side's watermark status, which only starts the idle clock.
 *
 * <p><b>State.</b> Keyed by the equality keys (one empty key without equality predicate): the build
 * rows ({@link BuildSideLayout}), the pending build changes, held -U rows ({@link
 * HeldUpdateBefores}), the buffered probe rows ({@link ProbeBuffer}), and with a state TTL the time
 * of the last access ({@link StateTtlClock}). The phase is union operator state: after a restore a
 * subtask is in the join phase when any subtask was, and then joins the probe rows it restored from
 * a subtask that was still loading, once it has applied the build changes up to the highest build
 * watermark of the snapshot. State TTL evicts, in the join phase only, all build rows of a key that
 * neither a probe row nor a build change has accessed for the TTL.
 */
public class LateralSnapshotJoinOperator extends AbstractStreamOperator<RowData>
        implements TwoInputStreamOperator<RowData, RowData, RowData> {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(LateralSnapshotJoinOperator.class);

    // ---- metrics ----

    /** Gauge: 0 in the load phase, 1 in the join phase. */
    public static final String CURRENT_PHASE = "currentPhase";

    /** Gauge: probe rows buffered in the load phase since the operator started or restored. */
    public static final String NUM_PROBE_SIDE_RECORDS_BUFFERED = "numProbeSideRecordsBuffered";

    /** Counter: probe rows without a match (dropped by INNER, null-padded by LEFT). */
    public static final String NUM_UNMATCHED_PROBE_RECORDS = "numUnmatchedProbeRecords";

    /** Counter: build retractions that found no row to retract. */
    public static final String NUM_UNMATCHED_BUILD_RETRACTIONS = "numUnmatchedBuildRetractions";

    /** Counter: build keys evicted by the state TTL. */
    public static final String NUM_STATE_TTL_EVICTIONS = "numStateTtlEvictions";

    /** Gauge: the build watermark in epoch millis, Long.MIN_VALUE before the first one. */
    public static final String CURRENT_BUILD_SIDE_WATERMARK = "currentBuildSideWatermark";

    /** Gauge: the probe watermark in epoch millis, Long.MIN_VALUE before the first one. */
    public static final String CURRENT_PROBE_SIDE_WATERMARK = "currentProbeSideWatermark";

    /** Gauge: the largest number of output rows of one probe row (a NULL-padded row counts 1). */
    public static final String MAX_JOIN_FAN_OUT = "maxJoinFanOut";

    /** Gauge: output rows per joined probe row, on average (a NULL-padded row counts 1). */
    public static final String AVG_JOIN_FAN_OUT = "avgJoinFanOut";

    /** Counter: build inserts and updates that arrived after the build watermark passed them. */
    public static final String NUM_LATE_BUILD_SIDE_RECORDS = "numLateBuildSideRecords";

    /** Counter: build changes applied to the build side. */
    public static final String NUM_BUILD_SIDE_CHANGES_APPLIED = "numBuildSideChangesApplied";

    /** Gauge: milliseconds spent in the load phase (still counting while loading). */
    public static final String LOAD_PHASE_DURATION = "loadPhaseDurationMs";

    // ---- state names, frozen: savepoints depend on them ----
    // The build rows, held -U rows, probe buffer, TTL clock and phase are named by their classes.

    static final String MAX_BUILD_TIME_STATE = "max-build-time";
    static final String BUILD_WATERMARK_STATE = "build-watermark";
    static final String PENDING_BUILD_CHANGES_STATE = "pending-build-changes";
    static final String BUILD_CHANGE_TIMERS = "build-change-timers";
    static final String STATE_TTL_TIMERS = "state-ttl-timers";

    /**
     * One slice of the drain at the flip ends after this many rows or {@link #DRAIN_SLICE_NANOS},
     * whichever comes first; the task then takes its input, and checkpoint barriers with it, for a
     * millisecond or more. A barrier waits behind the input queued before it, so the share of time
     * the input gets decides how soon a checkpoint completes.
     */
    static final long DRAIN_SLICE_ROWS = 10_000L;

    static final long DRAIN_SLICE_NANOS = 10_000_000L;

    /** How long build rows may arrive without any build watermark before a warning is logged. */
    static final long MISSING_BUILD_WATERMARK_WARNING_DELAY = 60_000L;

    // ---- configuration ----

    private final InternalTypeInfo<RowData> probeType;
    private final InternalTypeInfo<RowData> buildType;
    @Nullable private final GeneratedJoinCondition generatedCondition;
    private final boolean leftOuterJoin;
    private final int[] nullRejectingKeyPositions;
    private final BuildSideLayout buildSideLayout;
    private final int buildTimeIndex;
    private final int buildTimePrecision;
    private final long loadCompletedTime;
    private final long loadCompletedIdleTimeout;
    private final long stateTtl;

    /** The time budget of a drain slice; see {@link #setDrainSliceNanos}. */
    private long drainSliceNanos = DRAIN_SLICE_NANOS;

    // ---- state ----

    private transient UnionPhaseState phaseState;
    private transient UnionLongState maxBuildTimeState;
    private transient UnionLongState buildWatermarkState;

    /** The highest build watermark any subtask had reached when the restored snapshot was taken. */
    private transient long restoredBuildWatermark;

    private transient boolean restored;
    private transient boolean joinPhase;
    private transient boolean restoredFromLoadingSubtask;
    private transient boolean restoredProbeRowsToDrain;
    private transient ProbeBuffer probeBuffer;
    private transient InternalListState<Object, Long, RowData> pendingChanges;
    private transient HeldUpdateBefores heldUpdateBefores;
    @Nullable private transient StateTtlClock ttlClock;
    private transient BuildSideState buildSide;
    private transient InternalTimerService<Long> buildChangeTimers;

    // ---- runtime ----

    @Nullable private transient JoinCondition condition;
    private transient TimestampedCollector<RowData> collector;
    private transient ProbeRowJoiner joiner;
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

    // ---- the drain at the flip ----

    private transient boolean draining;

    /** The keys with buffered probe rows that the drain has not started on. */
    @Nullable private transient Set<Object> keysToDrain;

    @Nullable private transient Iterator<Object> nextKeysToDrain;
    @Nullable private transient Object drainingKey;
    @Nullable private transient Iterator<RowData> drainingRows;

    /** Whether probe rows were buffered for the draining key after its rows were taken up. */
    private transient boolean drainingKeyGrew;

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
     * @param stateTtl millis; build keys that no probe row and no build change accessed for this
     *     long are evicted in the join phase; 0 to keep them forever
     */
    public LateralSnapshotJoinOperator(
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
    static int[] positionsOf(boolean[] flags) {
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
     * Sets the time budget of a slice of the drain at the flip. Tests use it so that where a slice
     * ends does not depend on the speed of the machine (see {@code LateralSnapshotJoinDrainTest}).
     */
    @VisibleForTesting
    void setDrainSliceNanos(long nanos) {
        checkArgument(nanos >= 0, "The drain slice time must not be negative.");
        this.drainSliceNanos = nanos;
    }

    // ---- lifecycle ----

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        OperatorStateStore operatorState = context.getOperatorStateStore();
        restored = context.isRestored();
        if (restored) {
            checkRestoredDistribution(operatorState);
        }
        phaseState = new UnionPhaseState(operatorState);
        // Subtasks differ in phase only around the flip, which all of them reach from the same
        // build watermark. Going back to loading could wait forever for a watermark that was
        // already seen, so the join phase wins and the rows buffered by a loading subtask are
        // joined right after the restore.
        joinPhase = phaseState.restoredAnyJoinPhase();
        maxBuildTimeState = new UnionLongState(operatorState, MAX_BUILD_TIME_STATE);
        maxBuildTime = maxBuildTimeState.max(Long.MIN_VALUE);
        buildWatermarkState = new UnionLongState(operatorState, BUILD_WATERMARK_STATE);
        restoredBuildWatermark = buildWatermarkState.max(Long.MIN_VALUE);
        probeBuffer = new ProbeBuffer(operatorState);
        restoredFromLoadingSubtask = phaseState.restoredBothPhases();
        phaseState.update(joinPhase);

        if (stateTtl > 0) {
            ttlClock = new StateTtlClock(stateTtl, operatorState, getProcessingTimeService());
        }
    }

    /**
     * Fails on a snapshot of the broadcast join, whose build side this operator cannot read and
     * would start the join phase without.
     */
    private static void checkRestoredDistribution(OperatorStateStore operatorState) {
        Set<String> broadcastStates = operatorState.getRegisteredBroadcastStateNames();
        if (broadcastStates.contains(BroadcastMultisetBuildSideState.STATE_NAME)
                || broadcastStates.contains(BroadcastSingleRowBuildSideState.STATE_NAME)) {
            throw new IllegalStateException(
                    "The LATERAL SNAPSHOT join cannot restore its build side: the savepoint was"
                            + " taken by a join that broadcasts the build side"
                            + " ('table.exec.lateral-snapshot.build-distribution' = 'broadcast'),"
                            + " but this job partitions both inputs by the join keys. Restore with"
                            + " the build-side distribution of the job that took the savepoint.");
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open() throws Exception {
        super.open();
        KeyedStateStore store = checkNotNull(getKeyedStateStore(), "The join must be keyed.");
        String backend = getKeyedStateBackend().getBackendTypeIdentifier();
        probeBuffer.open(
                store,
                probeType,
                backend.equals(StateBackendLoader.ROCKSDB_STATE_BACKEND_NAME)
                        || backend.equals(StateBackendLoader.FORST_STATE_BACKEND_NAME));
        pendingChanges =
                (InternalListState<Object, Long, RowData>)
                        getKeyedStateBackend()
                                .getOrCreateKeyedState(
                                        LongSerializer.INSTANCE,
                                        new ListStateDescriptor<>(
                                                PENDING_BUILD_CHANGES_STATE, buildType));
        heldUpdateBefores = new HeldUpdateBefores(getKeyedStateBackend(), store, buildType);
        buildSide = BuildSideState.create(buildSideLayout, store, buildType);
        buildChangeTimers =
                getInternalTimerService(
                        BUILD_CHANGE_TIMERS, LongSerializer.INSTANCE, new BuildChangeTrigger());
        if (ttlClock != null) {
            ttlClock.open(
                    store,
                    getInternalTimerService(
                            STATE_TTL_TIMERS, VoidNamespaceSerializer.INSTANCE, new TtlTrigger()),
                    this);
        }

        if (generatedCondition != null) {
            condition =
                    generatedCondition.newInstance(getRuntimeContext().getUserCodeClassLoader());
            condition.setRuntimeContext(getRuntimeContext());
            condition.open(DefaultOpenContext.INSTANCE);
        }
        // Output rows carry their time in the probe's time attribute columns; a record timestamp
        // would only be set for rows joined in the join phase, so none is set at all.
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
            checkRestoredLayout();
            moveRestoredBuildRowsOfMapLayout();
            heldUpdateBefores.countRestored();
            if (restoredFromLoadingSubtask && ttlClock != null) {
                // Keys loaded by a subtask that had not flipped have no TTL clock yet. They get it
                // now rather than when the probe rows are drained, so that a checkpoint taken in
                // between, which restores with every subtask in the join phase, keeps it.
                for (Object key : keysOf(buildSide.stateName())) {
                    setCurrentKey(key);
                    if (!ttlClock.isRunning()) {
                        ttlClock.start();
                    }
                }
            }
            // Probe rows restored in the join phase come from a subtask that was still loading.
            // Ask the buffer, not the restored phases, for the same reason.
            restoredProbeRowsToDrain = joinPhase && hasKeys(ProbeBuffer.ROWS_STATE);
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
        LOG.info(
                "LATERAL SNAPSHOT join starts in the {} phase (load completed time {}, idle timeout"
                        + " {} ms, state TTL {} ms, build side kept as {}).",
                joinPhase ? "join" : "load",
                loadCompletedTime,
                loadCompletedIdleTimeout,
                stateTtl,
                buildSideLayout);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        maxBuildTimeState.update(maxBuildTime);
        // What a restore releases before it joins probe rows of a loading subtask: everything
        // this subtask had applied, also without a watermark.
        buildWatermarkState.update(
                Math.max(Math.max(buildWatermark, appliedAtFlip), restoredBuildWatermark));
        probeBuffer.snapshotState();
        if (ttlClock != null) {
            ttlClock.snapshotState();
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

    /** Fails when the savepoint keeps the build side in the other layout than this job. */
    private void checkRestoredLayout() {
        List<String> others =
                buildSideLayout == BuildSideLayout.MULTISET
                        ? List.of(SingleRowBuildSideState.STATE_NAME)
                        : List.of(
                                MultisetBuildSideState.STATE_NAME,
                                MultisetBuildSideState.SPILLED_STATE_NAME);
        for (String other : others) {
            if (hasKeys(other)) {
                throw new IllegalStateException(
                        "The LATERAL SNAPSHOT join cannot restore its build side: the savepoint keeps"
                                + " it in state '"
                                + other
                                + "', but this job keeps it as "
                                + buildSideLayout
                                + " in state '"
                                + buildSide.stateName()
                                + "'. This happens when a unique key of the build input changed."
                                + " Restore with the build input of the job that took the"
                                + " savepoint.");
            }
        }
    }

    /**
     * Savepoints taken before the multiset layout kept small keys inline have every key in the map
     * only, and no list: their keys are moved into the current layout before anything reads them. A
     * savepoint of the current layout has a list for every key with rows.
     */
    private void moveRestoredBuildRowsOfMapLayout() throws Exception {
        if (!(buildSide instanceof MultisetBuildSideState)
                || hasKeys(MultisetBuildSideState.STATE_NAME)) {
            return;
        }
        List<Object> keys = keysOf(MultisetBuildSideState.SPILLED_STATE_NAME);
        for (Object key : keys) {
            setCurrentKey(key);
            ((MultisetBuildSideState) buildSide).moveFromMapLayout();
        }
        if (!keys.isEmpty()) {
            LOG.info(
                    "LATERAL SNAPSHOT join moved the build rows of {} keys from the map layout of"
                            + " its savepoint.",
                    keys.size());
        }
    }

    // ---- phases ----

    private void flipToJoinPhase(String reason) throws Exception {
        if (buildWatermark == Long.MIN_VALUE && maxBuildTime != Long.MIN_VALUE) {
            // No watermark will say when the build side is loaded, and the idle timeout says it
            // is: what it sent is the loaded build side. The timers apply it in time order.
            appliedAtFlip = maxBuildTime;
            timeServiceManager.advanceWatermark(new Watermark(maxBuildTime));
        }
        joinPhase = true;
        phaseState.update(joinPhase);
        loadPhaseDuration = getProcessingTimeService().getCurrentProcessingTime() - startTime;
        if (ttlClock != null) {
            for (Object key : keysOf(buildSide.stateName())) {
                setCurrentKey(key);
                ttlClock.start();
            }
        }
        LOG.info(
                "LATERAL SNAPSHOT join switches to the join phase after {} ms because {}. Build"
                        + " watermark {}, probe watermark {}.",
                loadPhaseDuration,
                reason,
                buildWatermark,
                probeWatermark);
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
        keysToDrain = new LinkedHashSet<>();
        try (Stream<Object> keys =
                getKeyedStateBackend().getKeys(ProbeBuffer.ROWS_STATE, VoidNamespace.INSTANCE)) {
            keys.forEach(keysToDrain::add);
        }
        nextKeysToDrain = keysToDrain.iterator();
        draining = true;
        drainStart = getProcessingTimeService().getCurrentProcessingTime();
        drainedRows = 0;
    }

    private void drainSlice() throws Exception {
        if (!draining) {
            // finish() joined the rest.
            return;
        }
        if (drain(DRAIN_SLICE_ROWS, drainSliceNanos)) {
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
     * probe row counts its output rows and at least one, a key one more. Returns whether none is
     * left.
     */
    private boolean drain(long budget, long nanos) throws Exception {
        long start = System.nanoTime();
        long spent = 0;
        while (true) {
            if (drainingRows == null) {
                if (!nextKeysToDrain.hasNext()) {
                    return true;
                }
                drainingKey = nextKeysToDrain.next();
                nextKeysToDrain.remove();
                setCurrentKey(drainingKey);
                drainingRows = probeBuffer.drain();
                drainingKeyGrew = false;
                spent++;
            } else {
                setCurrentKey(drainingKey);
            }
            while (drainingRows.hasNext()) {
                long emitted = joiner.rowsEmitted();
                joinProbeRow(drainingRows.next());
                spent += Math.max(1, joiner.rowsEmitted() - emitted);
                drainedRows++;
                // Rows restored from a snapshot were not counted.
                if (probeRowsBuffered > 0) {
                    probeRowsBuffered--;
                }
                if (spent >= budget || System.nanoTime() - start >= nanos) {
                    return false;
                }
            }
            if (drainingKeyGrew) {
                // Rows of this key came while it drained: they follow the others.
                drainingRows = probeBuffer.drain();
                drainingKeyGrew = false;
            } else {
                drainingKey = null;
                drainingRows = null;
            }
            if (spent >= budget || System.nanoTime() - start >= nanos) {
                return false;
            }
        }
    }

    private void finishDrain() {
        draining = false;
        keysToDrain = null;
        nextKeysToDrain = null;
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

    /** Whether the current key still has buffered probe rows that the drain will join. */
    private boolean drainsCurrentKey() {
        Object key = getCurrentKey();
        if (key.equals(drainingKey)) {
            drainingKeyGrew = true;
            return true;
        }
        return keysToDrain.contains(key);
    }

    private void drainRestoredProbeRows() throws Exception {
        startRestoredDrain();
        drainSlice();
    }

    private void startRestoredDrain() throws Exception {
        restoredProbeRowsToDrain = false;
        // The subtask that had flipped had seen this build watermark, and every subtask gets the
        // same one from the build input: the changes it releases here are part of the loaded
        // build side that a flip would have joined these rows against.
        if (restoredBuildWatermark > buildWatermark) {
            timeServiceManager.advanceWatermark(new Watermark(restoredBuildWatermark));
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
        if (!joinPhase || (draining && drainsCurrentKey())) {
            probeBuffer.add(probeRow);
            probeRowsBuffered++;
            return;
        }
        joinProbeRow(probeRow);
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

    /** Joins one probe row of the current key against the current build rows and emits. */
    private void joinProbeRow(RowData probeRow) throws Exception {
        if (joiner.join(probeRow, !hasNullRejectingKey()) && ttlClock != null) {
            // A probe row that finds build rows keeps their key from expiring.
            ttlClock.touch();
        }
    }

    private boolean hasNullRejectingKey() {
        if (nullRejectingKeyPositions.length == 0) {
            return false;
        }
        RowData key = (RowData) getCurrentKey();
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
        if (hasNullRejectingKey()) {
            // Never matches; keeping it would only cost state.
            return;
        }
        if (ttlClock != null && joinPhase) {
            // A build change keeps its key alive, as a write does in Flink's state TTL.
            ttlClock.touch();
        }
        if (buildWatermark == Long.MIN_VALUE && !buildWatermarkCheckScheduled) {
            buildWatermarkCheckScheduled = true;
            getProcessingTimeService()
                    .registerTimer(
                            getProcessingTimeService().getCurrentProcessingTime()
                                    + MISSING_BUILD_WATERMARK_WARNING_DELAY,
                            time -> warnIfBuildWatermarkIsMissing());
        }
        RowData change = record.getValue();
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
            List<RowData> held = heldUpdateBefores.takeAll();
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
            for (RowData updateBefore : heldUpdateBefores.takeAll()) {
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
        // Fires the build-change timers up to the watermark: all released changes are applied
        // here, before the next probe row.
        timeServiceManager.advanceWatermark(mark);
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
     * watermark has already passed that time: every pending change has a later time, so the time
     * order holds. Such an insert or update is counted as late; a retraction is not, because it
     * carries the time of the row it retracts.
     */
    private void addPending(long time, RowData change) throws Exception {
        if (time <= buildWatermark) {
            if (RowDataUtil.isAccumulateMsg(change)) {
                lateBuildRecords.inc();
            }
            apply(change);
            return;
        }
        pendingChanges.setCurrentNamespace(time);
        pendingChanges.add(change);
        buildChangeTimers.registerEventTimeTimer(time, time);
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
        heldUpdateBefores.hold(time, releaseAt, updateBefore);
        buildChangeTimers.registerEventTimeTimer(time, releaseAt);
    }

    private void apply(RowData change) throws Exception {
        RowKind kind = change.getRowKind();
        change.setRowKind(RowKind.INSERT);
        if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER) {
            if (ttlClock != null && joinPhase && !ttlClock.isRunning()) {
                ttlClock.start();
            }
            buildSide.add(change);
        } else if (!buildSide.retract(change)) {
            unmatchedBuildRetractions.inc();
        }
        buildChangesApplied.inc();
    }

    private void warnIfBuildWatermarkIsMissing() {
        if (buildWatermark == Long.MIN_VALUE) {
            LoadPhaseWarnings.warnOfMissingBuildWatermark(LOG, joinPhase, loadCompletedIdleTimeout);
        }
    }

    private void warnIfBuildSideIsIdleFromTheStart() {
        if (!joinPhase && loadCompletedIdleTimeout == 0 && !idleClock.isStarted()) {
            LoadPhaseWarnings.warnOfBuildSideIdleFromTheStart(LOG, loadCompletedTime);
        }
    }

    // ---- timers ----

    /** Applies the build changes of the current key that a watermark released at a time. */
    private final class BuildChangeTrigger implements Triggerable<Object, Long> {

        @Override
        public void onEventTime(InternalTimer<Object, Long> timer) throws Exception {
            long time = timer.getNamespace();
            pendingChanges.setCurrentNamespace(time);
            Iterable<RowData> changes = pendingChanges.get();
            if (changes != null) {
                for (RowData change : changes) {
                    apply(change);
                }
                pendingChanges.clear();
            }
            // A held -U whose +U has not come is applied alone, after the changes of its time,
            // which arrived before it.
            long watermark = timer.getTimestamp();
            for (RowData updateBefore : heldUpdateBefores.takeReleased(time, watermark)) {
                addPending(time, updateBefore);
            }
        }

        @Override
        public void onProcessingTime(InternalTimer<Object, Long> timer) {
            throw new IllegalStateException("Build changes are only released by watermarks.");
        }
    }

    /** Evicts the build rows of a key that nothing accessed for the TTL. */
    private final class TtlTrigger implements Triggerable<Object, VoidNamespace> {

        @Override
        public void onProcessingTime(InternalTimer<Object, VoidNamespace> timer) throws Exception {
            if (ttlClock.expire() && !buildSide.isEmpty()) {
                buildSide.clear();
                stateTtlEvictions.inc();
            }
        }

        @Override
        public void onEventTime(InternalTimer<Object, VoidNamespace> timer) {
            throw new IllegalStateException("State TTL runs on processing time.");
        }
    }

    // ---- keyed state ----

    private boolean hasKeys(String stateName) {
        try (Stream<Object> keys =
                getKeyedStateBackend().getKeys(stateName, VoidNamespace.INSTANCE)) {
            return keys.findAny().isPresent();
        }
    }

    /** The keys that have a value in a state, collected first so the state may change after. */
    private List<Object> keysOf(String stateName) {
        try (Stream<Object> keys =
                getKeyedStateBackend().getKeys(stateName, VoidNamespace.INSTANCE)) {
            return keys.collect(Collectors.toList());
        }
    }
}
