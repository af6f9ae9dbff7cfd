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

package dev.lateralsnapshot.runtime.operators.join.snapshot.broadcast;

import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideDistribution;
import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinState;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinParameters;

import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;

import static org.apache.flink.util.Preconditions.checkArgument;
import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * The build side broadcast to every subtask ({@code
 * 'table.exec.lateral-snapshot.build-distribution' = 'broadcast'}), the probe side not partitioned
 * at all: every subtask keeps the whole build side in broadcast state, indexed by the equality
 * keys, which it selects from the rows itself. It runs at the probe side's parallelism, with or
 * without an equality predicate, and a hot key loads no subtask more than the others.
 */
public final class BroadcastDistribution implements BuildSideDistribution {

    private static final long serialVersionUID = 1L;

    private final RowDataKeySelector probeKeySelector;
    private final RowDataKeySelector buildKeySelector;
    private final long buildRowsWarningThreshold;

    /**
     * @param probeKeySelector the equality keys of a probe row; a selector of the empty key without
     *     equality predicate
     * @param buildKeySelector the equality keys of a build row, in the order of the probe's
     * @param buildRowsWarningThreshold a warning is logged once when a subtask's build side holds
     *     more rows; 0 for never
     */
    public BroadcastDistribution(
            RowDataKeySelector probeKeySelector,
            RowDataKeySelector buildKeySelector,
            long buildRowsWarningThreshold) {
        checkArgument(
                buildRowsWarningThreshold >= 0,
                "The build rows warning threshold must not be negative.");
        this.probeKeySelector = checkNotNull(probeKeySelector);
        this.buildKeySelector = checkNotNull(buildKeySelector);
        this.buildRowsWarningThreshold = buildRowsWarningThreshold;
    }

    @Override
    public JoinState createState(LateralSnapshotJoinParameters parameters) {
        return new BroadcastJoinState(
                parameters, probeKeySelector, buildKeySelector, buildRowsWarningThreshold);
    }

    @Override
    public String toString() {
        return "broadcast";
    }
}
