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

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.BiRel;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.sql.validate.SqlValidatorUtil;

import java.util.List;

import static org.apache.flink.util.Preconditions.checkArgument;
import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * A LATERAL SNAPSHOT join of a probe input (left) with a build input (right) before physical
 * planning: the join condition, the join type and the folded {@code SNAPSHOT} arguments.
 *
 * <p>Why not a {@link org.apache.calcite.rel.core.Join}: Flink's join rules would then treat it as
 * a regular join (commute it, merge it into multi-joins, rebuild it as a plain join, prune the
 * {@code on_time} column away). As a node of its own it is touched only by the rules of this
 * library, which keep the {@code on_time} position right.
 *
 * <p>The row type is that of a join: the probe columns followed by the build columns, the latter
 * nullable for a LEFT join.
 */
public abstract class LateralSnapshotJoinBase extends BiRel {

    protected final RexNode condition;
    protected final JoinRelType joinType;
    protected final SnapshotArguments arguments;

    protected LateralSnapshotJoinBase(
            RelOptCluster cluster,
            RelTraitSet traitSet,
            RelNode probe,
            RelNode build,
            RexNode condition,
            JoinRelType joinType,
            SnapshotArguments arguments) {
        super(cluster, traitSet, probe, build);
        checkArgument(
                joinType == JoinRelType.INNER || joinType == JoinRelType.LEFT,
                "Unsupported join type %s.",
                joinType);
        this.condition = checkNotNull(condition);
        this.joinType = joinType;
        this.arguments = checkNotNull(arguments);
    }

    /** Creates a node of the same class. */
    public abstract LateralSnapshotJoinBase copy(
            RelTraitSet traitSet,
            RelNode probe,
            RelNode build,
            RexNode condition,
            SnapshotArguments arguments);

    @Override
    public final RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
        checkArgument(inputs.size() == 2);
        return copy(traitSet, inputs.get(0), inputs.get(1), condition, arguments);
    }

    @Override
    public RelNode accept(RexShuttle shuttle) {
        RexNode newCondition = shuttle.apply(condition);
        return newCondition == condition
                ? this
                : copy(getTraitSet(), getLeft(), getRight(), newCondition, arguments);
    }

    public RexNode getCondition() {
        return condition;
    }

    public JoinRelType getJoinType() {
        return joinType;
    }

    public SnapshotArguments getArguments() {
        return arguments;
    }

    @Override
    protected RelDataType deriveRowType() {
        return SqlValidatorUtil.deriveJoinRowType(
                getLeft().getRowType(),
                getRight().getRowType(),
                joinType,
                getCluster().getTypeFactory(),
                null,
                List.of());
    }

    @Override
    public double estimateRowCount(RelMetadataQuery mq) {
        // Every probe row is joined once; the fan-out is unknown.
        return mq.getRowCount(getLeft());
    }

    @Override
    public RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
        double rows = mq.getRowCount(getLeft()) + mq.getRowCount(getRight());
        return planner.getCostFactory().makeCost(rows, rows, 0);
    }

    @Override
    public RelWriter explainTerms(RelWriter pw) {
        super.explainTerms(pw).item("condition", condition).item("joinType", joinType.lowerName);
        return arguments.explainTerms(pw, getRight().getRowType().getFieldNames());
    }
}
