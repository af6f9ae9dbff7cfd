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

package dev.lateralsnapshot.planner.plan.rules.logical;

import dev.lateralsnapshot.planner.plan.nodes.logical.LogicalLateralSnapshotJoin;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexPermuteInputsShuttle;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.calcite.util.mapping.Mapping;
import org.apache.calcite.util.mapping.MappingType;
import org.apache.calcite.util.mapping.Mappings;
import org.immutables.value.Value;

import java.util.List;

/**
 * Prunes the columns of both inputs of a {@link LogicalLateralSnapshotJoin} that neither the
 * projection above, the join condition nor the {@code on_time} argument uses, by projecting them
 * away below the join, and moves the {@code on_time} position along.
 *
 * <p>Why it matters: the operator keeps every build row and every buffered probe row in state, so
 * each pruned column saves state; and a non-deterministic build column that is not selected no
 * longer makes Flink's non-determinism check reject the query. Flink's own projection rules do not
 * know the node, so this rule does their work for it.
 */
@Value.Enclosing
public class LateralSnapshotJoinProjectTransposeRule
        extends RelRule<LateralSnapshotJoinProjectTransposeRule.Config> {

    public static final LateralSnapshotJoinProjectTransposeRule INSTANCE = Config.DEFAULT.toRule();

    private LateralSnapshotJoinProjectTransposeRule(Config config) {
        super(config);
    }

    @Override
    public void onMatch(RelOptRuleCall call) {
        LogicalProject project = call.rel(0);
        LogicalLateralSnapshotJoin join = call.rel(1);
        int probeFieldCount = join.getLeft().getRowType().getFieldCount();
        int buildFieldCount = join.getRight().getRowType().getFieldCount();
        int onTimeField = probeFieldCount + join.getArguments().getOnTimeIndex();

        ImmutableBitSet used =
                RelOptUtil.InputFinder.bits(project.getProjects(), null)
                        .union(RelOptUtil.InputFinder.bits(join.getCondition()))
                        .union(ImmutableBitSet.of(onTimeField));
        ImmutableBitSet probeFields = used.get(0, probeFieldCount);
        if (probeFields.isEmpty()) {
            // A projection needs at least one column.
            probeFields = ImmutableBitSet.of(0);
        }
        ImmutableBitSet buildFields = used.get(probeFieldCount, probeFieldCount + buildFieldCount);
        if (probeFields.cardinality() == probeFieldCount
                && buildFields.cardinality() == buildFieldCount) {
            return;
        }

        ImmutableBitSet kept = probeFields.union(buildFields);
        Mapping mapping =
                Mappings.create(
                        MappingType.INVERSE_SURJECTION,
                        probeFieldCount + buildFieldCount,
                        kept.cardinality());
        int target = 0;
        for (int source : kept) {
            mapping.set(source, target++);
        }

        RelBuilder relBuilder = call.builder();
        RelNode probe = project(relBuilder, join.getLeft(), probeFields, 0);
        RelNode build = project(relBuilder, join.getRight(), buildFields, probeFieldCount);
        // The condition sees the input types, the projection the join's (nullable build columns
        // for a LEFT join).
        RexPermuteInputsShuttle permuteInputs = new RexPermuteInputsShuttle(mapping, probe, build);
        LogicalLateralSnapshotJoin prunedJoin =
                LogicalLateralSnapshotJoin.create(
                        probe,
                        build,
                        join.getCondition().accept(permuteInputs),
                        join.getJoinType(),
                        join.getArguments()
                                .withOnTimeIndex(
                                        mapping.getTarget(onTimeField)
                                                - probe.getRowType().getFieldCount()));
        List<RexNode> projects =
                new RexPermuteInputsShuttle(mapping, prunedJoin).visitList(project.getProjects());
        call.transformTo(
                relBuilder
                        .push(prunedJoin)
                        .project(projects, project.getRowType().getFieldNames())
                        .build());
    }

    private static RelNode project(
            RelBuilder relBuilder, RelNode input, ImmutableBitSet fields, int offset) {
        relBuilder.push(input);
        if (fields.cardinality() < input.getRowType().getFieldCount()) {
            relBuilder.project(relBuilder.fields(fields.shift(-offset).asList()));
        }
        return relBuilder.build();
    }

    /** Rule configuration. */
    @Value.Immutable(singleton = false)
    public interface Config extends RelRule.Config {

        Config DEFAULT =
                ImmutableLateralSnapshotJoinProjectTransposeRule.Config.builder()
                        .operandSupplier(
                                b ->
                                        b.operand(LogicalProject.class)
                                                .oneInput(
                                                        join ->
                                                                join.operand(
                                                                                LogicalLateralSnapshotJoin
                                                                                        .class)
                                                                        .anyInputs()))
                        .description("LateralSnapshotJoinProjectTransposeRule")
                        .build();

        @Override
        default LateralSnapshotJoinProjectTransposeRule toRule() {
            return new LateralSnapshotJoinProjectTransposeRule(this);
        }
    }
}
