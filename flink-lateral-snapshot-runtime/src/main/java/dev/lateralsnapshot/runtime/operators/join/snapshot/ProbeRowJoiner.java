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
 * and occurrence, or, in a LEFT join without a match, the probe row padded with nulls. It registers
 * and keeps the metrics of the matches. One instance serves every probe row, and the joined row is
 * reused, so probing allocates nothing.
 */
final class ProbeRowJoiner implements BuildSideState.RowVisitor {

    @Nullable private final JoinCondition condition;
    private final boolean leftOuterJoin;
    private final BuildSideState buildSide;
    private final Collector<RowData> collector;
    private final JoinedRowData joinedRow = new JoinedRowData();
    private final GenericRowData nullBuildRow;
    private final Counter unmatchedProbeRecords;

    private RowData probeRow;
    private long matches;
    private long probeRowsJoined;
    private long rowsEmitted;
    private long maxFanOut;

    ProbeRowJoiner(
            @Nullable JoinCondition condition,
            boolean leftOuterJoin,
            BuildSideState buildSide,
            int buildArity,
            Collector<RowData> collector,
            MetricGroup metrics) {
        this.condition = condition;
        this.leftOuterJoin = leftOuterJoin;
        this.buildSide = buildSide;
        this.collector = collector;
        this.nullBuildRow = new GenericRowData(buildArity);
        this.unmatchedProbeRecords =
                metrics.counter(LateralSnapshotJoinOperator.NUM_UNMATCHED_PROBE_RECORDS);
        metrics.gauge(LateralSnapshotJoinOperator.MAX_JOIN_FAN_OUT, (Gauge<Long>) () -> maxFanOut);
        metrics.gauge(
                LateralSnapshotJoinOperator.AVG_JOIN_FAN_OUT,
                (Gauge<Double>)
                        () -> probeRowsJoined == 0 ? 0.0 : (double) rowsEmitted / probeRowsJoined);
    }

    /**
     * Joins a probe row of the current key with the key's build rows, or with none when it can
     * match none (a NULL in a key compared with {@code =}). Returns whether the key has build rows,
     * matching or not.
     */
    boolean join(RowData probeRow, boolean canMatch) throws Exception {
        this.probeRow = probeRow;
        this.matches = 0;
        return emit(canMatch && buildSide.visitRows(this));
    }

    /**
     * Joins a probe row of the current key with build rows of the key read before, by {@link
     * BuildSideState#readRows}, or {@link BuildSideState#NO_ROWS} when it can match none. Returns
     * whether the key has build rows, matching or not.
     */
    boolean join(RowData probeRow, BuildSideState.KeyRows keyRows) throws Exception {
        this.probeRow = probeRow;
        this.matches = 0;
        return emit(keyRows.visit(this));
    }

    /** Emits the padded row if the probe row matched none, and counts the metrics. */
    private boolean emit(boolean hasBuildRows) {
        // The fan-out counts output rows, as Flink 2.4's join does: a padded row counts 1.
        long emitted = matches;
        if (matches == 0) {
            unmatchedProbeRecords.inc();
            if (leftOuterJoin) {
                collector.collect(joinedRow.replace(probeRow, nullBuildRow));
                emitted = 1;
            }
        }
        probeRowsJoined++;
        rowsEmitted += emitted;
        if (emitted > maxFanOut) {
            maxFanOut = emitted;
        }
        return hasBuildRows;
    }

    /** Rows emitted so far, for every probe row. */
    long rowsEmitted() {
        return rowsEmitted;
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
