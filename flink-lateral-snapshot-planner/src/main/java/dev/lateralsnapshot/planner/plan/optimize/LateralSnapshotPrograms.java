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

import dev.lateralsnapshot.config.LateralSnapshotOptions;
import dev.lateralsnapshot.planner.internal.FilterPushDownRules;
import dev.lateralsnapshot.planner.internal.OptimizerPrograms;
import dev.lateralsnapshot.planner.plan.nodes.logical.FlinkLogicalLateralSnapshotJoin;
import dev.lateralsnapshot.planner.plan.rules.logical.BatchLateralSnapshotJoinToRegularJoinRule;
import dev.lateralsnapshot.planner.plan.rules.logical.LateralSnapshotJoinCaptureRule;
import dev.lateralsnapshot.planner.plan.rules.logical.LateralSnapshotJoinFilterTransposeRule;
import dev.lateralsnapshot.planner.plan.rules.logical.LateralSnapshotJoinProjectTransposeRule;
import dev.lateralsnapshot.planner.plan.rules.logical.SnapshotScans;
import dev.lateralsnapshot.planner.plan.rules.physical.stream.StreamPhysicalLateralSnapshotJoinRule;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.planner.plan.optimize.program.BatchOptimizeContext;
import org.apache.flink.table.planner.plan.optimize.program.FlinkChainedProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeContext;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeProgram;
import org.apache.flink.table.planner.plan.optimize.program.StreamOptimizeContext;

import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.tools.RuleSet;
import org.apache.calcite.tools.RuleSets;

import java.util.ArrayList;
import java.util.List;

/**
 * The optimizer programs the library installs in place of Flink's.
 *
 * <p>Each installed program is a shell that builds Flink's program, extended by this library, from
 * the configuration in effect when a query is optimized, and runs it ({@link
 * OptimizerPrograms#perOptimization}).
 */
public final class LateralSnapshotPrograms {

    /** The name of the single program in the installed shells. */
    public static final String PROGRAM_NAME = "lateral_snapshot";

    private LateralSnapshotPrograms() {}

    /** The stream program shell to install. */
    public static FlinkChainedProgram<StreamOptimizeContext> streamProgram() {
        return OptimizerPrograms.perOptimization(
                PROGRAM_NAME, LateralSnapshotPrograms::buildStreamProgram);
    }

    /** The batch program shell to install. */
    public static FlinkChainedProgram<BatchOptimizeContext> batchProgram() {
        return OptimizerPrograms.perOptimization(
                PROGRAM_NAME, LateralSnapshotPrograms::buildBatchProgram);
    }

    /** Whether the program is a shell of this class. */
    public static boolean isLateralSnapshotProgram(FlinkChainedProgram<?> program) {
        return OptimizerPrograms.hasProgram(program, PROGRAM_NAME);
    }

    /** Flink's stream program for the configuration, extended by this library. */
    public static FlinkChainedProgram<StreamOptimizeContext> buildStreamProgram(
            ReadableConfig config) {
        return OptimizerPrograms.streamProgram(
                config,
                capture(
                        // An invalid value fails here, with the option's own message, rather
                        // than inside the physical rule, where the planner would wrap it.
                        () -> {
                            LateralSnapshotOptions.buildDistribution(config);
                            LateralSnapshotOptions.broadcastBuildRowsWarningThreshold(config);
                        },
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
                RuleSets.ofList(StreamPhysicalLateralSnapshotJoinRule.INSTANCE),
                ChangelogInferenceProgram::wrap);
    }

    /**
     * Brings WHERE conjuncts above other joins (of the FROM clause or of rewritten sub-queries),
     * above projections and above other SNAPSHOT joins down to the SNAPSHOT join whose columns they
     * compare, where a filter variant of the capture takes them as the join condition.
     */
    private static RuleSet streamPushDownRules() {
        List<RelOptRule> rules = new ArrayList<>();
        FilterPushDownRules.restrictedTo(LateralSnapshotJoinCaptureRule::leadsToSnapshotJoin)
                .forEach(rules::add);
        rules.add(LateralSnapshotJoinFilterTransposeRule.INSTANCE);
        return RuleSets.ofList(rules);
    }

    /** Flink's batch program for the configuration, extended by this library. */
    public static FlinkChainedProgram<BatchOptimizeContext> buildBatchProgram(
            ReadableConfig config) {
        return OptimizerPrograms.batchProgram(
                config,
                capture(
                        // The build distribution does not apply to batch.
                        () -> {},
                        // Batch plans a regular join, which Flink's own push-down handles.
                        RuleSets.ofList(),
                        RuleSets.ofList(
                                BatchLateralSnapshotJoinToRegularJoinRule.JOIN,
                                BatchLateralSnapshotJoinToRegularJoinRule.JOIN_PROJECT)));
    }

    /**
     * Checks the options, applies the preparing rules until none matches, then the capture rules
     * once each, bottom-up, then rejects any {@code SNAPSHOT} scan they did not consume. A plan
     * without a {@code SNAPSHOT} scan, which none of the rules would change, is returned as it is,
     * so that ordinary queries do not pay for the two rule passes, nor fail on an option they do
     * not use.
     */
    private static <OC extends FlinkOptimizeContext> FlinkOptimizeProgram<OC> capture(
            Runnable checkOptions, RuleSet prepareRules, RuleSet rules) {
        FlinkOptimizeProgram<OC> prepare = OptimizerPrograms.hepProgram(prepareRules, false);
        FlinkOptimizeProgram<OC> rewrite = OptimizerPrograms.hepProgram(rules, true);
        return (root, context) -> {
            if (!SnapshotScans.containsSnapshotScan(root)) {
                return root;
            }
            checkOptions.run();
            RelNode captured = rewrite.optimize(prepare.optimize(root, context), context);
            SnapshotScans.rejectRemainingSnapshotScans(captured);
            return captured;
        };
    }
}
