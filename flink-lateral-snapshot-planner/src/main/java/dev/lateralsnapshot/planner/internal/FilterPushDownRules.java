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

package dev.lateralsnapshot.planner.internal;

import org.apache.flink.table.planner.plan.rules.logical.FlinkFilterJoinRule;
import org.apache.flink.table.planner.plan.rules.logical.FlinkFilterJoinRule.FlinkFilterIntoJoinRule.FlinkFilterIntoJoinRuleConfig;
import org.apache.flink.table.planner.plan.rules.logical.FlinkFilterJoinRule.FlinkJoinConditionPushRule.FlinkFilterJoinRuleConfig;
import org.apache.flink.table.planner.plan.rules.logical.FlinkFilterProjectTransposeRule;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.rules.FilterMergeRule;
import org.apache.calcite.rel.rules.FilterProjectTransposeRule;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.tools.RuleSet;
import org.apache.calcite.tools.RuleSets;

import java.util.function.Predicate;

/**
 * Flink's own filter push-down rules of its {@code predicate_pushdown} phase, restricted to some
 * nodes, so that what they rewrite early is rewritten as Flink would rewrite it later. The
 * restriction replaces the operands of Flink's rule configurations; that each configuration keeps
 * its own type when its operands are replaced, and still builds Flink's rule, is the assumption.
 */
public final class FilterPushDownRules {

    private FilterPushDownRules() {}

    /**
     * The rules, restricted to the nodes {@code accepted} accepts (a join, a projection, or the
     * lower of two filters): a filter above a join moves into the join condition and into the
     * inputs it may move into for the join type, never into an event-time temporal join; conjuncts
     * of an inner join's condition that reference one input move into it; a filter moves below a
     * projection unless it references a non-deterministic expression of it; two filters merge.
     */
    public static RuleSet restrictedTo(Predicate<RelNode> accepted) {
        return RuleSets.ofList(
                FlinkFilterJoinRule.FILTER_INTO_JOIN
                        .config
                        .withOperandSupplier(
                                filter ->
                                        filter.operand(Filter.class)
                                                .oneInput(
                                                        join ->
                                                                join.operand(Join.class)
                                                                        .predicate(accepted)
                                                                        .anyInputs()))
                        .withDescription("LateralSnapshotFilterIntoJoinRule")
                        .as(FlinkFilterIntoJoinRuleConfig.class)
                        .toRule(),
                FlinkFilterJoinRule.JOIN_CONDITION_PUSH
                        .config
                        .withOperandSupplier(
                                join -> join.operand(Join.class).predicate(accepted).anyInputs())
                        .withDescription("LateralSnapshotJoinConditionPushRule")
                        .as(FlinkFilterJoinRuleConfig.class)
                        .toRule(),
                FlinkFilterProjectTransposeRule.build(
                        FilterProjectTransposeRule.Config.DEFAULT
                                .withOperandFor(
                                        Filter.class,
                                        filter ->
                                                !RexUtil.containsCorrelation(filter.getCondition()),
                                        Project.class,
                                        accepted::test)
                                .withDescription("LateralSnapshotFilterProjectTransposeRule")
                                .as(FilterProjectTransposeRule.Config.class)),
                FilterMergeRule.Config.DEFAULT
                        .withOperandSupplier(
                                upper ->
                                        upper.operand(Filter.class)
                                                .oneInput(
                                                        lower ->
                                                                lower.operand(Filter.class)
                                                                        .predicate(accepted)
                                                                        .anyInputs()))
                        .withDescription("LateralSnapshotFilterMergeRule")
                        .as(FilterMergeRule.Config.class)
                        .toRule());
    }
}
