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

package dev.lateralsnapshot.planner.plan.nodes.logical;

import dev.lateralsnapshot.planner.functions.SnapshotArguments;

import org.apache.calcite.plan.Convention;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexNode;

/**
 * The LATERAL SNAPSHOT join in Calcite's logical convention, as the capture rule creates it from a
 * join with a {@code SNAPSHOT} table function scan. The logical rewrite phases (projection pruning)
 * work on this node; Flink's logical phase converts it to {@link FlinkLogicalLateralSnapshotJoin}.
 */
public final class LogicalLateralSnapshotJoin extends LateralSnapshotJoinBase {

    private LogicalLateralSnapshotJoin(
            RelOptCluster cluster,
            RelTraitSet traitSet,
            RelNode probe,
            RelNode build,
            RexNode condition,
            JoinRelType joinType,
            SnapshotArguments arguments) {
        super(cluster, traitSet, probe, build, condition, joinType, arguments);
    }

    public static LogicalLateralSnapshotJoin create(
            RelNode probe,
            RelNode build,
            RexNode condition,
            JoinRelType joinType,
            SnapshotArguments arguments) {
        RelOptCluster cluster = probe.getCluster();
        return new LogicalLateralSnapshotJoin(
                cluster,
                cluster.traitSetOf(Convention.NONE),
                probe,
                build,
                condition,
                joinType,
                arguments);
    }

    @Override
    public LogicalLateralSnapshotJoin copy(
            RelTraitSet traitSet,
            RelNode probe,
            RelNode build,
            RexNode condition,
            SnapshotArguments arguments) {
        return new LogicalLateralSnapshotJoin(
                getCluster(), traitSet, probe, build, condition, joinType, arguments);
    }
}
