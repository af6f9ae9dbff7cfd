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

package dev.lateralsnapshot.planner.plan.rules.physical.stream;

import dev.lateralsnapshot.config.LateralSnapshotOptions;
import dev.lateralsnapshot.config.LateralSnapshotOptions.BuildDistribution;
import dev.lateralsnapshot.planner.plan.nodes.logical.FlinkLogicalLateralSnapshotJoin;
import dev.lateralsnapshot.planner.plan.nodes.physical.stream.StreamPhysicalLateralSnapshotJoin;

import org.apache.flink.table.planner.plan.nodes.FlinkConventions;
import org.apache.flink.table.planner.plan.trait.FlinkRelDistribution;
import org.apache.flink.table.planner.plan.utils.JoinUtil;
import org.apache.flink.table.planner.utils.ShortcutUtils;

import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.convert.ConverterRule;
import org.apache.calcite.rel.core.JoinInfo;

import java.util.ArrayList;

/**
 * Converts {@link FlinkLogicalLateralSnapshotJoin} into {@link StreamPhysicalLateralSnapshotJoin}
 * with the inputs distributed as {@link LateralSnapshotOptions#BUILD_DISTRIBUTION} says when the
 * statement is planned.
 *
 * <ul>
 *   <li>{@code hash}: both inputs hash-partitioned on the equality keys of the condition, so that a
 *       probe row meets the build rows of its key on one subtask. Without equality keys both inputs
 *       go to a single subtask.
 *   <li>{@code broadcast}: both inputs taken as they are; the exec node sends the build input to
 *       every subtask, and the join runs at the parallelism of the probe input.
 * </ul>
 */
public class StreamPhysicalLateralSnapshotJoinRule extends ConverterRule {

    public static final StreamPhysicalLateralSnapshotJoinRule INSTANCE =
            Config.INSTANCE
                    .withConversion(
                            FlinkLogicalLateralSnapshotJoin.class,
                            FlinkConventions.LOGICAL(),
                            FlinkConventions.STREAM_PHYSICAL(),
                            "StreamPhysicalLateralSnapshotJoinRule")
                    .withRuleFactory(StreamPhysicalLateralSnapshotJoinRule::new)
                    .toRule(StreamPhysicalLateralSnapshotJoinRule.class);

    private StreamPhysicalLateralSnapshotJoinRule(Config config) {
        super(config);
    }

    @Override
    public RelNode convert(RelNode rel) {
        FlinkLogicalLateralSnapshotJoin join = (FlinkLogicalLateralSnapshotJoin) rel;
        // The same analysis as the join spec of the physical node, so the exchanges match the
        // key selectors of the operator.
        JoinInfo joinInfo =
                JoinUtil.createJoinInfo(
                        join.getLeft(), join.getRight(), join.getCondition(), new ArrayList<>());
        BuildDistribution buildDistribution =
                LateralSnapshotOptions.buildDistribution(ShortcutUtils.unwrapTableConfig(rel));
        RelNode probe;
        RelNode build;
        if (buildDistribution == BuildDistribution.BROADCAST) {
            // No exchange under either input. The exec node broadcasts the build input itself:
            // Flink 2.3's stream planner has no broadcast exchange (its upsert key metadata fails
            // on one, and its stream exchange cannot translate one).
            probe = convertInput(join.getLeft(), FlinkRelDistribution.ANY());
            build = convertInput(join.getRight(), FlinkRelDistribution.ANY());
        } else {
            probe = convertInput(join.getLeft(), hashOrSingleton(joinInfo.leftKeys.toIntArray()));
            build = convertInput(join.getRight(), hashOrSingleton(joinInfo.rightKeys.toIntArray()));
        }
        return new StreamPhysicalLateralSnapshotJoin(
                join.getCluster(),
                join.getTraitSet().replace(FlinkConventions.STREAM_PHYSICAL()),
                probe,
                build,
                join.getCondition(),
                join.getJoinType(),
                join.getArguments(),
                buildDistribution,
                ShortcutUtils.unwrapTableConfig(rel)
                        .get(LateralSnapshotOptions.LOAD_COMPLETED_ON_CAUGHT_UP));
    }

    private static FlinkRelDistribution hashOrSingleton(int[] keys) {
        return keys.length == 0
                ? FlinkRelDistribution.SINGLETON()
                : FlinkRelDistribution.hash(keys, true);
    }

    private static RelNode convertInput(RelNode input, FlinkRelDistribution distribution) {
        RelTraitSet traits =
                input.getTraitSet()
                        .replace(FlinkConventions.STREAM_PHYSICAL())
                        .replace(distribution);
        return RelOptRule.convert(input, traits);
    }
}
