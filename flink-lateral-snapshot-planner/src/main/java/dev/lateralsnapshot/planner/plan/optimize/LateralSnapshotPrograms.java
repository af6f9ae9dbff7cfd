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

package dev.lateralsnapshot.planner.plan.optimize;

import dev.lateralsnapshot.planner.FlinkPlannerInternals;
import dev.lateralsnapshot.planner.plan.nodes.logical.FlinkLogicalLateralSnapshotJoin;
import dev.lateralsnapshot.planner.plan.rules.logical.LateralSnapshotJoinCaptureRule;
import dev.lateralsnapshot.planner.plan.rules.logical.LateralSnapshotJoinFilterTransposeRule;
import dev.lateralsnapshot.planner.plan.rules.logical.LateralSnapshotJoinProjectTransposeRule;
import dev.lateralsnapshot.planner.plan.rules.logical.BatchLateralSnapshotJoinToRegularJoinRule;
import dev.lateralsnapshot.planner.plan.rules.physical.stream.StreamPhysicalLateralSnapshotJoinRule;
import dev.lateralsnapshot.planner.plan.utils.LateralSnapshotUtil;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.planner.plan.optimize.program.BatchOptimizeContext;
import org.apache.flink.table.planner.plan.optimize.program.FlinkChainedProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkHepRuleSetProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkHepRuleSetProgramBuilder;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeContext;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeProgram;
import org.apache.flink.table.planner.plan.optimize.program.HEP_RULES_EXECUTION_TYPE;
import org.apache.flink.table.planner.plan.optimize.program.StreamOptimizeContext;

import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.hep.HepMatchOrder;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.tools.RuleSet;
import org.apache.calcite.tools.RuleSets;

import java.util.ArrayList;
import java.util.List;

/**
 * The optimizer programs the library installs in place of Flink's.
 *
 * <p>Each installed program is a shell that builds Flink's program, extended by this library, from
 * the configuration in effect when a query is optimized, and runs it. Flink itself builds its
 * programs per optimization, and several phases depend on the configuration (join reordering, for
 * one); a program built once at installation would freeze those options.
 */
public final class LateralSnapshotPrograms {

    /** The name of the single program in the installed shells. */
    public static final String PROGRAM_NAME = "lateral_snapshot";

    private LateralSnapshotPrograms() {}

    /** The stream program shell to install. */
    public static FlinkChainedProgram<StreamOptimizeContext> streamProgram() {
        FlinkChainedProgram<StreamOptimizeContext> program = new FlinkChainedProgram<>();
        program.addLast(
                PROGRAM_NAME,
                (root, context) ->
                        buildStreamProgram(context.getTableConfig()).optimize(root, context));
        return program;
    }

    /** The batch program shell to install. */
    public static FlinkChainedProgram<BatchOptimizeContext> batchProgram() {
        FlinkChainedProgram<BatchOptimizeContext> program = new FlinkChainedProgram<>();
        program.addLast(
                PROGRAM_NAME,
                (root, context) ->
                        buildBatchProgram(context.getTableConfig()).optimize(root, context));
        return program;
    }

    /** Whether the program is a shell of this class. */
    public static boolean isLateralSnapshotProgram(FlinkChainedProgram<?> program) {
        return program.getProgramNames().contains(PROGRAM_NAME);
    }

    /** Flink's stream program for the configuration, extended by this library. */
    public static FlinkChainedProgram<StreamOptimizeContext> buildStreamProgram(
            ReadableConfig config) {
        return FlinkPlannerInternals.streamProgram(
                config,
                capture(
                        streamPushDownRules(),
                        // The filter variants first, so that the WHERE clause of a cross join
                        // becomes the join condition.
                        RuleSets.ofList(
                                LateralSnapshotJoinCaptureRule.FILTER_JOIN,
                                LateralSnapshotJoinCaptureRule.FILTER_JOIN_PROJECT,
                                LateralSnapshotJoinCaptureRule.JOIN,
                                LateralSnapshotJoinCaptureRule.JOIN_PROJECT)),
                RuleSets.ofList(LateralSnapshotJoinProjectTransposeRule.INSTANCE),
                RuleSets.ofList(FlinkLogicalLateralSnapshotJoin.CONVERTER),
                RuleSets.ofList(StreamPhysicalLateralSnapshotJoinRule.INSTANCE));
    }

    /**
     * Brings WHERE conjuncts above other joins (of the FROM clause or of rewritten sub-queries),
     * above projections and above other SNAPSHOT joins down to the SNAPSHOT join whose columns they
     * compare, where a filter variant of the capture takes them as the join condition.
     */
    private static RuleSet streamPushDownRules() {
        List<RelOptRule> rules = new ArrayList<>();
        FlinkPlannerInternals.filterPushDownRules(
                        LateralSnapshotJoinCaptureRule::leadsToSnapshotJoin)
                .forEach(rules::add);
        rules.add(LateralSnapshotJoinFilterTransposeRule.INSTANCE);
        return RuleSets.ofList(rules);
    }

    /** Flink's batch program for the configuration, extended by this library. */
    public static FlinkChainedProgram<BatchOptimizeContext> buildBatchProgram(
            ReadableConfig config) {
        return FlinkPlannerInternals.batchProgram(
                config,
                capture(
                        // Batch plans a regular join, which Flink's own push-down handles.
                        RuleSets.ofList(),
                        RuleSets.ofList(
                                BatchLateralSnapshotJoinToRegularJoinRule.JOIN,
                                BatchLateralSnapshotJoinToRegularJoinRule.JOIN_PROJECT)));
    }

    /**
     * Applies the preparing rules until none matches, then the capture rules once each, bottom-up,
     * then rejects any {@code SNAPSHOT} scan they did not consume. A plan without a {@code
     * SNAPSHOT} scan, which none of the rules would change, is returned as it is, so that ordinary
     * queries do not pay for the two rule passes.
     */
    private static <OC extends FlinkOptimizeContext> FlinkOptimizeProgram<OC> capture(
            RuleSet prepareRules, RuleSet rules) {
        FlinkHepRuleSetProgram<OC> prepare =
                FlinkHepRuleSetProgramBuilder.<OC>newBuilder()
                        .setHepRulesExecutionType(HEP_RULES_EXECUTION_TYPE.RULE_COLLECTION())
                        .setHepMatchOrder(HepMatchOrder.BOTTOM_UP)
                        .add(prepareRules)
                        .build();
        FlinkHepRuleSetProgram<OC> rewrite =
                FlinkHepRuleSetProgramBuilder.<OC>newBuilder()
                        .setHepRulesExecutionType(HEP_RULES_EXECUTION_TYPE.RULE_SEQUENCE())
                        .setHepMatchOrder(HepMatchOrder.BOTTOM_UP)
                        .add(rules)
                        .build();
        return (root, context) -> {
            if (!LateralSnapshotUtil.containsSnapshotScan(root)) {
                return root;
            }
            RelNode captured = rewrite.optimize(prepare.optimize(root, context), context);
            LateralSnapshotUtil.rejectRemainingSnapshotScans(captured);
            return captured;
        };
    }
}
