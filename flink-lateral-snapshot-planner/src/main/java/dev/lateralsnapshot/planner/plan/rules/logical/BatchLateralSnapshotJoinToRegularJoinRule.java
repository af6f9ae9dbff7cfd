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

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.immutables.value.Value;

import java.util.ArrayList;
import java.util.List;

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
        SnapshotJoinMatch match = SnapshotJoinMatch.of(call, config);
        RelNode build = match.build();
        LogicalProject project = match.buildProject();
        if (project != null) {
            build = project.copy(project.getTraitSet(), List.of(build));
        }
        LogicalJoin join = match.join();
        List<RelDataTypeField> inputFields =
                new ArrayList<>(join.getLeft().getRowType().getFieldList());
        inputFields.addAll(build.getRowType().getFieldList());
        RelNode regularJoin =
                join.copy(
                        join.getTraitSet(),
                        SnapshotJoinMatch.typedLike(join.getCondition(), inputFields),
                        join.getLeft(),
                        build,
                        join.getJoinType(),
                        join.isSemiJoinDone());
        // The build input may have time attributes that the scan declared as plain timestamps.
        call.transformTo(RelOptUtil.createCastRel(regularJoin, join.getRowType(), true));
    }

    /** Rule configuration. */
    @Value.Immutable(singleton = false)
    public interface Config extends SnapshotJoinMatch.Shape {

        Config JOIN = join(false, "BatchLateralSnapshotJoinToRegularJoinRule(Join)");

        Config JOIN_PROJECT =
                join(true, "BatchLateralSnapshotJoinToRegularJoinRule(Join, Project)");

        @Override
        default BatchLateralSnapshotJoinToRegularJoinRule toRule() {
            return new BatchLateralSnapshotJoinToRegularJoinRule(this);
        }

        private static Config join(boolean buildProject, String description) {
            return ImmutableBatchLateralSnapshotJoinToRegularJoinRule.Config.builder()
                    .matchesFilter(false)
                    .matchesBuildProject(buildProject)
                    .operandSupplier(b -> SnapshotJoinMatch.operands(b, false, buildProject))
                    .description(description)
                    .build();
        }
    }
}
