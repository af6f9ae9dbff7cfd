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
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;
import org.immutables.value.Value;

import java.util.ArrayList;
import java.util.List;

/**
 * Moves the conjuncts of a filter above a not yet captured SNAPSHOT join that reference only its
 * probe side into the probe side, below the join; the other conjuncts stay above. That is valid for
 * an INNER and a LEFT join alike, as a LEFT join keeps every probe row. Non-deterministic conjuncts
 * stay above, where they are evaluated once per output row.
 *
 * <p>It runs with the filter push-down before the capture, for a probe side that is, or leads to,
 * another SNAPSHOT join whose condition is in the WHERE clause: {@code FROM orders o, LATERAL
 * SNAPSHOT(...) r LEFT JOIN LATERAL SNAPSHOT(...) c ON c.id = r.id WHERE o.currency = r.currency}.
 * Without it, that condition stays above the upper join, and the lower one is captured without a
 * condition. Flink's own push-down cannot do this part: on a SNAPSHOT join it would also move
 * conjuncts onto the {@code SNAPSHOT} scan, where the capture no longer finds it, and turn a LEFT
 * join into an INNER one to move conjuncts into its condition.
 */
@Value.Enclosing
public class LateralSnapshotJoinFilterTransposeRule
        extends RelRule<LateralSnapshotJoinFilterTransposeRule.Config> {

    public static final LateralSnapshotJoinFilterTransposeRule INSTANCE = Config.DEFAULT.toRule();

    private LateralSnapshotJoinFilterTransposeRule(Config config) {
        super(config);
    }

    @Override
    public void onMatch(RelOptRuleCall call) {
        LogicalFilter filter = call.rel(0);
        LogicalJoin join = call.rel(1);
        int probeFieldCount = join.getLeft().getRowType().getFieldCount();
        List<RexNode> probeConjuncts = new ArrayList<>();
        List<RexNode> otherConjuncts = new ArrayList<>();
        for (RexNode conjunct : RelOptUtil.conjunctions(filter.getCondition())) {
            ImmutableBitSet fields = RelOptUtil.InputFinder.bits(conjunct);
            if (!fields.isEmpty()
                    && fields.length() <= probeFieldCount
                    && RexUtil.isDeterministic(conjunct)) {
                probeConjuncts.add(conjunct);
            } else {
                otherConjuncts.add(conjunct);
            }
        }
        if (probeConjuncts.isEmpty()) {
            return;
        }
        RelBuilder relBuilder = call.builder();
        // A filter keeps the columns of its input, so the conjuncts and the join condition keep
        // their field positions.
        RelNode probe = relBuilder.push(join.getLeft()).filter(probeConjuncts).build();
        RelNode pushed =
                join.copy(
                        join.getTraitSet(),
                        join.getCondition(),
                        probe,
                        join.getRight(),
                        join.getJoinType(),
                        join.isSemiJoinDone());
        call.transformTo(relBuilder.push(pushed).filter(otherConjuncts).build());
    }

    /** Rule configuration. */
    @Value.Immutable(singleton = false)
    public interface Config extends RelRule.Config {

        Config DEFAULT =
                ImmutableLateralSnapshotJoinFilterTransposeRule.Config.builder()
                        .operandSupplier(
                                b ->
                                        b.operand(LogicalFilter.class)
                                                .oneInput(
                                                        join ->
                                                                join.operand(LogicalJoin.class)
                                                                        .predicate(Config::isJoin)
                                                                        .anyInputs()))
                        .description("LateralSnapshotJoinFilterTransposeRule")
                        .build();

        @Override
        default LateralSnapshotJoinFilterTransposeRule toRule() {
            return new LateralSnapshotJoinFilterTransposeRule(this);
        }

        /** A SNAPSHOT join of a type it has; others are rejected later. */
        private static boolean isJoin(LogicalJoin join) {
            return (join.getJoinType() == JoinRelType.INNER
                            || join.getJoinType() == JoinRelType.LEFT)
                    && SnapshotJoinMatch.isSnapshotJoin(join);
        }
    }
}
