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

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.table.runtime.generated.JoinCondition;
import org.apache.flink.util.Collector;

import javax.annotation.Nullable;

/**
 * Joins a probe row with the build rows of its key and emits one joined row per matching build row
 * and occurrence, or, in a LEFT join without a match, the probe row padded with nulls. A key with a
 * NULL where the condition compares with {@code =} matches nothing. A probe row that finds build
 * rows keeps their key from expiring under a state TTL. It registers and keeps the metrics of the
 * matches. One instance serves every probe row, and the joined row is reused, so probing allocates
 * nothing.
 */
final class ProbeRowJoiner implements BuildSideState.RowVisitor, ProbeBuffer.DrainedRows {

    private final LateralSnapshotJoinParameters parameters;
    @Nullable private final JoinCondition condition;
    private final BuildSideState buildSide;
    @Nullable private final BuildKeyTtl ttl;
    private final BuildSideWriter writer;
    private final Collector<RowData> collector;
    private final JoinedRowData joinedRow = new JoinedRowData();
    private final GenericRowData nullBuildRow;
    private final Counter unmatchedProbeRecords;

    private RowData probeRow;
    private long matches;
    private long probeRowsJoined;
    private long rowsEmitted;
    private long maxFanOut;

    /** The build rows of the key of the drained row before, read at {@link #readVersion}. */
    private BuildSideState.KeyRows drainedKeyRows = BuildSideState.NO_ROWS;

    private long readVersion = -1;

    ProbeRowJoiner(
            LateralSnapshotJoinParameters parameters,
            @Nullable JoinCondition condition,
            JoinState state,
            BuildSideWriter writer,
            Collector<RowData> collector,
            MetricGroup metrics) {
        this.parameters = parameters;
        this.condition = condition;
        this.buildSide = state.buildSide();
        this.ttl = state.ttl();
        this.writer = writer;
        this.collector = collector;
        this.nullBuildRow = new GenericRowData(parameters.buildType().toRowSize());
        this.unmatchedProbeRecords =
                metrics.counter(LateralSnapshotJoinMetrics.NUM_UNMATCHED_PROBE_RECORDS);
        metrics.gauge(LateralSnapshotJoinMetrics.MAX_JOIN_FAN_OUT, (Gauge<Long>) () -> maxFanOut);
        metrics.gauge(
                LateralSnapshotJoinMetrics.AVG_JOIN_FAN_OUT,
                (Gauge<Double>)
                        () -> probeRowsJoined == 0 ? 0.0 : (double) rowsEmitted / probeRowsJoined);
    }

    /** Joins a probe row of the current key, whose join key is given, with the key's build rows. */
    void join(RowData probeRow, RowData key) throws Exception {
        start(probeRow);
        finish(!parameters.rejects(key) && buildSide.visitRows(this));
    }

    /**
     * Joins a buffered probe row that the drain at the flip hands over. The build rows of its key
     * are read once for the rows of that key that follow one another, until the build rows change.
     */
    @Override
    public long join(RowData probeRow, RowData key, boolean sameKeyAsBefore) throws Exception {
        if (!sameKeyAsBefore || readVersion != writer.version()) {
            drainedKeyRows =
                    parameters.rejects(key)
                            ? BuildSideState.NO_ROWS
                            : buildSide.readRowsInKeyOrder(writer.version());
            readVersion = writer.version();
        }
        long emittedBefore = rowsEmitted;
        start(probeRow);
        finish(drainedKeyRows.visit(this));
        return Math.max(1, rowsEmitted - emittedBefore);
    }

    @Override
    public void drainEnded() {
        buildSide.endReadsInKeyOrder();
        drainedKeyRows = BuildSideState.NO_ROWS;
        readVersion = -1;
    }

    private void start(RowData probeRow) {
        this.probeRow = probeRow;
        this.matches = 0;
    }

    /** Emits the padded row if the probe row matched none, counts, and touches the key's clock. */
    private void finish(boolean keyHasBuildRows) throws Exception {
        // The fan-out counts output rows, as Flink 2.4's join does: a padded row counts 1.
        long emitted = matches;
        if (matches == 0) {
            unmatchedProbeRecords.inc();
            if (parameters.leftOuterJoin()) {
                collector.collect(joinedRow.replace(probeRow, nullBuildRow));
                emitted = 1;
            }
        }
        probeRowsJoined++;
        rowsEmitted += emitted;
        if (emitted > maxFanOut) {
            maxFanOut = emitted;
        }
        if (keyHasBuildRows && ttl != null) {
            ttl.touch();
        }
    }

    @Override
    public void visit(RowData buildRow, int multiplicity) {
        if (condition == null || condition.apply(probeRow, buildRow)) {
            joinedRow.replace(probeRow, buildRow);
            for (int i = 0; i < multiplicity; i++) {
                collector.collect(joinedRow);
            }
            matches += multiplicity;
        }
    }
}
