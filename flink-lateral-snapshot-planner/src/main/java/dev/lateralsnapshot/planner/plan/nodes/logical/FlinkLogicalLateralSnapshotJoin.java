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

import dev.lateralsnapshot.planner.FlinkPlannerInternals;
import dev.lateralsnapshot.planner.functions.SnapshotArguments;

import org.apache.flink.table.planner.plan.nodes.FlinkConventions;
import org.apache.flink.table.planner.plan.nodes.logical.FlinkLogicalRel;

import org.apache.calcite.plan.Convention;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttle;
import org.apache.calcite.rel.convert.ConverterRule;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexNode;

/**
 * The LATERAL SNAPSHOT join in Flink's logical convention, between Flink's logical and physical
 * phases.
 *
 * <p>Flink's time-attribute conversion visits every logical node and rejects classes it does not
 * know; this node answers it itself (see {@link #accept(RelShuttle)}).
 */
public final class FlinkLogicalLateralSnapshotJoin extends LateralSnapshotJoinBase
        implements FlinkLogicalRel {

    /** Converts {@link LogicalLateralSnapshotJoin} in Flink's logical phase. */
    public static final ConverterRule CONVERTER =
            ConverterRule.Config.INSTANCE
                    .withConversion(
                            LogicalLateralSnapshotJoin.class,
                            Convention.NONE,
                            FlinkConventions.LOGICAL(),
                            "FlinkLogicalLateralSnapshotJoinConverter")
                    .withRuleFactory(Converter::new)
                    .toRule(ConverterRule.class);

    public FlinkLogicalLateralSnapshotJoin(
            RelOptCluster cluster,
            RelTraitSet traitSet,
            RelNode probe,
            RelNode build,
            RexNode condition,
            JoinRelType joinType,
            SnapshotArguments arguments) {
        super(cluster, traitSet, probe, build, condition, joinType, arguments);
    }

    @Override
    public FlinkLogicalLateralSnapshotJoin copy(
            RelTraitSet traitSet,
            RelNode probe,
            RelNode build,
            RexNode condition,
            SnapshotArguments arguments) {
        return new FlinkLogicalLateralSnapshotJoin(
                getCluster(), traitSet, probe, build, condition, joinType, arguments);
    }

    @Override
    public RelNode accept(RelShuttle shuttle) {
        if (FlinkPlannerInternals.isTimeIndicatorConversion(shuttle)) {
            return FlinkPlannerInternals.convertTimeIndicators(this, shuttle);
        }
        return super.accept(shuttle);
    }

    private static final class Converter extends ConverterRule {

        private Converter(Config config) {
            super(config);
        }

        @Override
        public RelNode convert(RelNode rel) {
            LogicalLateralSnapshotJoin join = (LogicalLateralSnapshotJoin) rel;
            RelTraitSet traitSet =
                    join.getTraitSet().replace(FlinkConventions.LOGICAL()).simplify();
            return new FlinkLogicalLateralSnapshotJoin(
                    join.getCluster(),
                    traitSet,
                    RelOptRule.convert(join.getLeft(), FlinkConventions.LOGICAL()),
                    RelOptRule.convert(join.getRight(), FlinkConventions.LOGICAL()),
                    join.getCondition(),
                    join.getJoinType(),
                    join.getArguments());
        }
    }
}
