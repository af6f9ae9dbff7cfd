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

import dev.lateralsnapshot.planner.functions.SnapshotArguments;
import dev.lateralsnapshot.planner.plan.utils.LateralSnapshotUtil;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.logical.LogicalTableFunctionScan;
import org.apache.calcite.rex.RexCall;
import org.immutables.value.Value;

import java.util.List;

import static org.apache.flink.table.planner.utils.ShortcutUtils.unwrapTableConfig;

/**
 * In batch mode a LATERAL SNAPSHOT join is a regular join against the complete build side: every
 * build change is known before the first probe row is joined, so the load phase, the watermarks and
 * the state TTL have nothing to do. This rule replaces the {@code SNAPSHOT} scan by its input and
 * leaves the join to Flink's batch planning (a hash join or an adaptive join).
 *
 * <p>The arguments are still checked, so that a query valid in batch mode is only rejected in
 * streaming mode for streaming reasons ({@code on_time}); their values are not used.
 */
@Value.Enclosing
public class BatchLateralSnapshotJoinToRegularJoinRule
        extends RelRule<BatchLateralSnapshotJoinToRegularJoinRule.Config> {

    /** {@code Join(probe, SNAPSHOT(build))}. */
    public static final BatchLateralSnapshotJoinToRegularJoinRule JOIN = Config.JOIN.toRule();

    /** {@code Join(probe, Project(SNAPSHOT(build)))}, with computed join keys of the build side. */
    public static final BatchLateralSnapshotJoinToRegularJoinRule JOIN_PROJECT =
            Config.JOIN_PROJECT.toRule();

    private BatchLateralSnapshotJoinToRegularJoinRule(Config config) {
        super(config);
    }

    @Override
    public void onMatch(RelOptRuleCall call) {
        LogicalJoin join = call.rel(0);
        LogicalTableFunctionScan scan = call.rel(call.rels.length - 1);
        LateralSnapshotUtil.checkJoinType(join.getJoinType());
        RelNode build = LateralSnapshotUtil.buildInput(scan);
        SnapshotArguments.fold((RexCall) scan.getCall(), build, unwrapTableConfig(scan));
        if (config.matchesBuildProject()) {
            LogicalProject project = call.rel(2);
            build = project.copy(project.getTraitSet(), List.of(build));
        }
        call.transformTo(
                join.copy(
                        join.getTraitSet(),
                        join.getCondition(),
                        join.getLeft(),
                        build,
                        join.getJoinType(),
                        join.isSemiJoinDone()));
    }

    /** Rule configuration. */
    @Value.Immutable(singleton = false)
    public interface Config extends RelRule.Config {

        Config JOIN =
                ImmutableBatchLateralSnapshotJoinToRegularJoinRule.Config.builder()
                        .matchesBuildProject(false)
                        .operandSupplier(b -> joinOverSnapshot(b, false))
                        .description("BatchLateralSnapshotJoinToRegularJoinRule(Join)")
                        .build();

        Config JOIN_PROJECT =
                ImmutableBatchLateralSnapshotJoinToRegularJoinRule.Config.builder()
                        .matchesBuildProject(true)
                        .operandSupplier(b -> joinOverSnapshot(b, true))
                        .description("BatchLateralSnapshotJoinToRegularJoinRule(Join, Project)")
                        .build();

        /** Whether the rule matches a projection between the join and the scan. */
        boolean matchesBuildProject();

        @Override
        default BatchLateralSnapshotJoinToRegularJoinRule toRule() {
            return new BatchLateralSnapshotJoinToRegularJoinRule(this);
        }

        private static RelRule.Done joinOverSnapshot(
                RelRule.OperandBuilder builder, boolean buildProject) {
            RelRule.OperandTransform snapshot =
                    scan ->
                            scan.operand(LogicalTableFunctionScan.class)
                                    .predicate(LateralSnapshotUtil::isSnapshotScan)
                                    .anyInputs();
            // Semi and anti joins come from sub-queries, never from a LATERAL join.
            return builder.operand(LogicalJoin.class)
                    .predicate(join -> join.getJoinType().projectsRight())
                    .inputs(
                            probe -> probe.operand(RelNode.class).anyInputs(),
                            buildProject
                                    ? project ->
                                            project.operand(LogicalProject.class).oneInput(snapshot)
                                    : snapshot);
        }
    }
}
