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
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.ListTypeInfo;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.generated.GeneratedJoinCondition;
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
public class BroadcastLateralSnapshotJoinOperator extends AbstractLateralSnapshotJoinOperator {

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

    private final RowDataKeySelector probeKeySelector;
    private final RowDataKeySelector buildKeySelector;
    private final long buildRowsWarningThreshold;

    // ---- state ----

    private transient ListState<RowData> probeBufferState;
    private transient BroadcastState<Long, List<RowData>> pendingChangesState;
    private transient BroadcastBuildSideState<?> buildSide;
    private transient BroadcastHeldUpdateBefores heldUpdateBefores;

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

    private transient RowDataSerializer probeKeySerializer;
    private transient RowDataSerializer buildKeySerializer;

    /** The key of the build change being processed. */
    private transient RowData buildChangeKey;

    private transient boolean buildRowsWarningLogged;

    // ---- the drain at the flip ----

    /** Per key, the buffered probe rows the drain has not joined yet. */
    @Nullable private transient Map<RowData, Integer> rowsToDrainByKey;

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
        this.probeKeySelector = checkNotNull(probeKeySelector);
        this.buildKeySelector = checkNotNull(buildKeySelector);
        checkArgument(
                buildRowsWarningThreshold >= 0,
                "The build rows warning threshold must not be negative.");
        this.buildRowsWarningThreshold = buildRowsWarningThreshold;
    }

    @Override
    Logger log() {
        return LOG;
    }

    // ---- lifecycle ----

    @Override
    void initializeBuildAndProbeState(OperatorStateStore operatorState) throws Exception {
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
    @Override
    void checkRestoredState(OperatorStateStore operatorState) {
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
    BuildSideState openBuildSide() {
        probeKeySerializer = probeKeySelector.getProducedType().toRowSerializer();
        buildKeySerializer = buildKeySelector.getProducedType().toRowSerializer();
        if (stateTtl > 0) {
            ttl = new BroadcastStateTtl(stateTtl, getProcessingTimeService(), this::evict);
        }
        return buildSide;
    }

    @Override
    void openRestored() throws Exception {
        buildSide.countRestored();
        heldUpdateBefores.countRestored();
        if (joinPhase) {
            startTtlClocks();
        }
        warnIfBuildSideIsLarge();
    }

    @Override
    boolean hasBufferedProbeRows() {
        return !probeBuffer.isEmpty();
    }

    @Override
    void logStart() {
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
    void snapshotBuildAndProbeState() throws Exception {
        probeBufferState.update(probeBuffer.subList(drainPosition, probeBuffer.size()));
        pendingChangesState.clear();
        for (Map.Entry<Long, List<RowData>> entry : pendingChanges.entrySet()) {
            pendingChangesState.put(entry.getKey(), entry.getValue());
        }
    }

    // ---- phases ----

    @Override
    void logFlip(String reason) {
        LOG.info(
                "LATERAL SNAPSHOT join switches to the join phase after {} ms because {}. Build"
                        + " watermark {}, probe watermark {}, {} build rows.",
                loadPhaseDuration,
                reason,
                buildWatermark,
                probeWatermark,
                buildSide.rowCount());
    }

    @Override
    void startTtlClocks() throws Exception {
        if (ttl != null) {
            for (RowData key : buildSide.keys()) {
                ttl.start(key);
            }
        }
    }

    // ---- the drain ----

    @Override
    void startDrainingRows() throws Exception {
        rowsToDrainByKey = new HashMap<>();
        for (int i = drainPosition; i < probeBuffer.size(); i++) {
            rowsToDrainByKey.merge(probeKey(probeBuffer.get(i)), 1, Integer::sum);
        }
    }

    /** A probe row counts its output rows and at least one. */
    @Override
    boolean drain(long budget, long nanos) throws Exception {
        long start = System.nanoTime();
        long spent = 0;
        while (drainPosition < probeBuffer.size()) {
            RowData probeRow = probeBuffer.set(drainPosition++, null);
            RowData key = probeKey(probeRow);
            rowsToDrainByKey.computeIfPresent(key, (k, rows) -> rows == 1 ? null : rows - 1);
            long emitted = joiner.rowsEmitted();
            joinProbeRow(key, probeRow);
            spent += countDrained(emitted);
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

    @Override
    void clearDrainingKeys() {
        rowsToDrainByKey = null;
    }

    // ---- probe side ----

    @Override
    void processProbeRow(RowData probeRow) throws Exception {
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
    boolean enterBuildKey(RowData change) throws Exception {
        buildChangeKey = buildKey(change);
        if (hasNullRejectingKey(buildChangeKey)) {
            return false;
        }
        if (ttl != null && joinPhase) {
            // A build change keeps its key alive, as a write does in Flink's state TTL.
            ttl.touch(buildChangeKey);
        }
        return true;
    }

    @Override
    List<RowData> takeHeldUpdateBefores() throws Exception {
        return heldUpdateBefores.takeAll(buildChangeKey);
    }

    @Override
    void holdUpdateBefore(long time, long releaseAt, RowData updateBefore) throws Exception {
        heldUpdateBefores.hold(buildChangeKey, time, releaseAt, updateBefore);
    }

    @Override
    void addPendingChange(long time, RowData change) {
        pendingChanges.computeIfAbsent(time, t -> new ArrayList<>()).add(change);
    }

    /**
     * Applies the pending changes up to a build time in time order, then lets the held -U rows go
     * alone that the time lets go. A held -U has no change of its key after it, and none before it
     * with a later time than the one that lets it go, so applying it after the others keeps the
     * order of its key's changes.
     */
    @Override
    void applyChangesUpTo(long upTo) throws Exception {
        while (!pendingChanges.isEmpty() && pendingChanges.firstKey() <= upTo) {
            for (RowData change : pendingChanges.pollFirstEntry().getValue()) {
                apply(change);
            }
        }
        for (RowData updateBefore : heldUpdateBefores.takeReleased(upTo)) {
            addPending(timeOf(updateBefore), updateBefore);
        }
    }

    @Override
    void apply(RowData change) throws Exception {
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
