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
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.StateBackendLoader;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.internal.InternalListState;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.generated.GeneratedJoinCondition;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.types.RowKind;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

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
 * of the last access ({@link StateTtlClock}). On the heap state backend the build rows are also
 * held in an index of the keys, which probe rows read ({@link IndexedValueState}); a restore
 * rebuilds it from the state. The phase is union operator state: after a restore a subtask is in
 * the join phase when any subtask was, and then joins the probe rows it restored from a subtask
 * that was still loading, once it has applied the build changes up to the highest build watermark
 * of the snapshot. State TTL evicts, in the join phase only, all build rows of a key that neither a
 * probe row nor a build change has accessed for the TTL.
 */
public class LateralSnapshotJoinOperator extends AbstractLateralSnapshotJoinOperator {

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

    // ---- state ----

    private transient boolean restoredFromLoadingSubtask;
    private transient ProbeBuffer probeBuffer;
    private transient PendingBuildChanges pendingChanges;
    private transient HeldUpdateBefores heldUpdateBefores;
    @Nullable private transient StateTtlClock ttlClock;
    private transient BuildSideState buildSide;
    private transient InternalTimerService<Long> buildChangeTimers;

    // ---- the drain at the flip ----

    /** The keys with buffered probe rows that the drain has not started on. */
    @Nullable private transient Set<Object> keysToDrain;

    @Nullable private transient Iterator<Object> nextKeysToDrain;
    @Nullable private transient Object drainingKey;
    @Nullable private transient Iterator<RowData> drainingRows;

    /** Whether probe rows were buffered for the draining key after its rows were taken up. */
    private transient boolean drainingKeyGrew;

    /**
     * The draining key's build rows, read once for its buffered rows; null until read, and again
     * after any build change, so that every buffered row meets the build rows of its turn.
     */
    @Nullable private transient BuildSideState.KeyRows drainingBuildRows;

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
        super(
                probeType,
                buildType,
                generatedCondition,
                leftOuterJoin,
                filterNullKeys,
                buildSideLayout,
                buildTimeIndex,
                buildTimePrecision,
                loadCompletedTime,
                loadCompletedIdleTimeout,
                stateTtl);
    }

    @Override
    Logger log() {
        return LOG;
    }

    // ---- lifecycle ----

    @Override
    void initializeBuildAndProbeState(OperatorStateStore operatorState) throws Exception {
        probeBuffer = new ProbeBuffer(operatorState);
        restoredFromLoadingSubtask = phaseState.restoredBothPhases();
        if (stateTtl > 0) {
            ttlClock = new StateTtlClock(stateTtl, operatorState, getProcessingTimeService());
        }
    }

    /**
     * Fails on a snapshot of the broadcast join, whose build side this operator cannot read and
     * would start the join phase without.
     */
    @Override
    void checkRestoredState(OperatorStateStore operatorState) {
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
    BuildSideState openBuildSide() throws Exception {
        KeyedStateStore store = checkNotNull(getKeyedStateStore(), "The join must be keyed.");
        String backend = getKeyedStateBackend().getBackendTypeIdentifier();
        boolean heap = backend.equals(StateBackendLoader.HASHMAP_STATE_BACKEND_NAME);
        probeBuffer.open(
                store,
                probeType,
                backend.equals(StateBackendLoader.ROCKSDB_STATE_BACKEND_NAME)
                        || backend.equals(StateBackendLoader.FORST_STATE_BACKEND_NAME));
        pendingChanges =
                new PendingBuildChanges(
                        getKeyedStateBackend(),
                        (InternalListState<Object, Long, RowData>)
                                getKeyedStateBackend()
                                        .getOrCreateKeyedState(
                                                LongSerializer.INSTANCE,
                                                new ListStateDescriptor<>(
                                                        PENDING_BUILD_CHANGES_STATE, buildType)),
                        PENDING_BUILD_CHANGES_STATE);
        heldUpdateBefores = new HeldUpdateBefores(getKeyedStateBackend(), store, buildType);
        // On the heap every probe row's read of its key's rows goes to an index of the same row
        // objects; RocksDB keeps no rows on the heap, and an index would be a second copy.
        buildSide =
                BuildSideState.create(
                        buildSideLayout, store, buildType, heap ? this : null, ttlClock != null);
        buildChangeTimers =
                getInternalTimerService(
                        BUILD_CHANGE_TIMERS, LongSerializer.INSTANCE, new BuildChangeTrigger());
        if (ttlClock != null) {
            ttlClock.open(
                    store,
                    getInternalTimerService(
                            STATE_TTL_TIMERS, VoidNamespaceSerializer.INSTANCE, new TtlTrigger()),
                    this,
                    buildSide.index());
        }
        return buildSide;
    }

    @Override
    void openRestored() throws Exception {
        checkRestoredLayout();
        IndexedValueState<?> index = buildSide.index();
        if (index != null) {
            for (Object key : keysOf(buildSide.stateName())) {
                setCurrentKey(key);
                index.indexCurrentKey();
            }
        }
        moveRestoredBuildRowsOfEarlierLayouts();
        heldUpdateBefores.readRestored();
        pendingChanges.readRestored();
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
    }

    @Override
    boolean hasBufferedProbeRows() {
        return hasKeys(ProbeBuffer.ROWS_STATE);
    }

    @Override
    void logStart() {
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
    void snapshotBuildAndProbeState() throws Exception {
        probeBuffer.snapshotState();
        heldUpdateBefores.writeToState();
        pendingChanges.writeToState();
        if (ttlClock != null) {
            ttlClock.snapshotState();
        }
    }

    /** Fails when the savepoint keeps the build side in the other layout than this job. */
    private void checkRestoredLayout() {
        List<String> others =
                buildSideLayout == BuildSideLayout.MULTISET
                        ? List.of(SingleRowBuildSideState.STATE_NAME)
                        : List.of(
                                MultisetBuildSideState.STATE_NAME,
                                MultisetBuildSideState.LIST_STATE_NAME,
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
     * Savepoints of the earlier multiset layouts have no value for any key: the one before kept a
     * key's inline rows in a list state, the one before that every key in the map only. Their keys
     * are moved into the current layout before anything reads them. A savepoint of the current
     * layout has a value for every key with rows.
     */
    private void moveRestoredBuildRowsOfEarlierLayouts() throws Exception {
        if (!(buildSide instanceof MultisetBuildSideState)
                || hasKeys(MultisetBuildSideState.STATE_NAME)) {
            return;
        }
        MultisetBuildSideState multiset = (MultisetBuildSideState) buildSide;
        List<Object> keys = keysOf(MultisetBuildSideState.LIST_STATE_NAME);
        boolean fromList = !keys.isEmpty();
        if (!fromList) {
            keys = keysOf(MultisetBuildSideState.SPILLED_STATE_NAME);
        }
        for (Object key : keys) {
            setCurrentKey(key);
            if (fromList) {
                multiset.moveFromListLayout();
            } else {
                multiset.moveFromMapLayout();
            }
        }
        if (!keys.isEmpty()) {
            LOG.info(
                    "LATERAL SNAPSHOT join moved the build rows of {} keys from the {} layout of"
                            + " its savepoint.",
                    keys.size(),
                    fromList ? "list" : "map");
        }
    }

    // ---- phases ----

    /**
     * Fires the build-change timers up to a build time: the timers apply the changes in time order.
     */
    @Override
    void applyChangesUpTo(long time) throws Exception {
        timeServiceManager.advanceWatermark(new Watermark(time));
    }

    @Override
    void startTtlClocks() throws Exception {
        if (ttlClock != null) {
            for (Object key : keysOf(buildSide.stateName())) {
                setCurrentKey(key);
                ttlClock.start();
            }
        }
    }

    @Override
    void logFlip(String reason) {
        LOG.info(
                "LATERAL SNAPSHOT join switches to the join phase after {} ms because {}. Build"
                        + " watermark {}, probe watermark {}.",
                loadPhaseDuration,
                reason,
                buildWatermark,
                probeWatermark);
    }

    // ---- the drain ----

    @Override
    void startDrainingRows() throws Exception {
        keysToDrain = new LinkedHashSet<>();
        try (Stream<Object> keys =
                getKeyedStateBackend().getKeys(ProbeBuffer.ROWS_STATE, VoidNamespace.INSTANCE)) {
            keys.forEach(keysToDrain::add);
        }
        nextKeysToDrain = keysToDrain.iterator();
    }

    /** A probe row counts its output rows and at least one, a key one more. */
    @Override
    boolean drain(long budget, long nanos) throws Exception {
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
                drainingBuildRows = null;
                spent++;
            } else {
                setCurrentKey(drainingKey);
            }
            while (drainingRows.hasNext()) {
                long emitted = joiner.rowsEmitted();
                joinDrainedRow(drainingRows.next());
                spent += countDrained(emitted);
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

    @Override
    void clearDrainingKeys() {
        keysToDrain = null;
        nextKeysToDrain = null;
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

    // ---- probe side ----

    @Override
    void processProbeRow(RowData probeRow) throws Exception {
        if (!joinPhase || (draining && drainsCurrentKey())) {
            probeBuffer.add(probeRow);
            probeRowsBuffered++;
            return;
        }
        joinProbeRow(probeRow);
    }

    /** Joins one probe row of the current key against the current build rows and emits. */
    private void joinProbeRow(RowData probeRow) throws Exception {
        touchIfMatched(joiner.join(probeRow, !hasNullRejectingKey()));
    }

    /** Joins a buffered probe row of the draining key, with the key's build rows read once. */
    private void joinDrainedRow(RowData probeRow) throws Exception {
        if (drainingBuildRows == null) {
            drainingBuildRows =
                    hasNullRejectingKey() ? BuildSideState.NO_ROWS : buildSide.readRows();
        }
        touchIfMatched(joiner.join(probeRow, drainingBuildRows));
    }

    private void touchIfMatched(boolean keyHasBuildRows) throws Exception {
        if (keyHasBuildRows && ttlClock != null) {
            // A probe row that finds build rows keeps their key from expiring.
            ttlClock.touch();
        }
    }

    private boolean hasNullRejectingKey() {
        return rejectsNullKeys() && hasNullRejectingKey((RowData) getCurrentKey());
    }

    // ---- build side ----

    @Override
    boolean enterBuildKey(RowData change) throws Exception {
        // Flink has set the key of the change.
        if (hasNullRejectingKey()) {
            return false;
        }
        if (ttlClock != null && joinPhase) {
            // A build change keeps its key alive, as a write does in Flink's state TTL.
            ttlClock.touch();
        }
        return true;
    }

    @Override
    List<RowData> takeHeldUpdateBefores() throws Exception {
        return heldUpdateBefores.takeAll();
    }

    @Override
    void addPendingChange(long time, RowData change) throws Exception {
        pendingChanges.add(time, change);
        buildChangeTimers.registerEventTimeTimer(time, time);
    }

    @Override
    void holdUpdateBefore(long time, long releaseAt, RowData updateBefore) throws Exception {
        heldUpdateBefores.hold(time, releaseAt, updateBefore);
        buildChangeTimers.registerEventTimeTimer(time, releaseAt);
    }

    @Override
    void apply(RowData change) throws Exception {
        drainingBuildRows = null;
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

    // ---- timers ----

    /** Applies the build changes of the current key that a watermark released at a time. */
    private final class BuildChangeTrigger implements Triggerable<Object, Long> {

        @Override
        public void onEventTime(InternalTimer<Object, Long> timer) throws Exception {
            long time = timer.getNamespace();
            for (RowData change : pendingChanges.take(time)) {
                apply(change);
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
                drainingBuildRows = null;
                buildSide.clear();
                stateTtlEvictions.inc();
            }
        }

        @Override
        public void onEventTime(InternalTimer<Object, VoidNamespace> timer) {
            throw new IllegalStateException("State TTL runs on processing time.");
        }
    }

    /** Whether probe rows read the build rows through an index of the keys rather than state. */
    @VisibleForTesting
    boolean readsBuildRowsThroughIndex() {
        return buildSide.index() != null;
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
