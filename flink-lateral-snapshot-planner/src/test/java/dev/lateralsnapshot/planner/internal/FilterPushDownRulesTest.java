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

import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.planner.plan.rules.logical.FlinkFilterJoinRule;
import org.apache.flink.table.planner.plan.rules.logical.FlinkFilterProjectTransposeRule;

import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.rel.rules.FilterMergeRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.physicalPlan;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.planLines;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/** Guards for {@link FilterPushDownRules}: Flink's filter rules with replaced operands. */
class FilterPushDownRulesTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    @Test
    void restrictedRulesAreFlinksRules() {
        List<RelOptRule> rules = new ArrayList<>();
        FilterPushDownRules.restrictedTo(node -> true).forEach(rules::add);
        assertThat(rules)
                .as(
                        "Flink's filter push-down rule configurations no longer build Flink's"
                                + " rules once their operands are replaced")
                .hasExactlyElementsOfTypes(
                        FlinkFilterJoinRule.FlinkFilterIntoJoinRule.class,
                        FlinkFilterJoinRule.FlinkJoinConditionPushRule.class,
                        FlinkFilterProjectTransposeRule.class,
                        FilterMergeRule.class);
    }

    @Test
    void restrictedRulesBringAWhereConjunctDownToTheSnapshotJoin(TableEnvironment env) {
        env.executeSql(
                createTable("items", "order_id BIGINT, item STRING", "'connector' = 'datagen'"));
        String plan =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.rate, i.item FROM orders AS o, LATERAL SNAPSHOT("
                                + "input => TABLE rates, on_time => DESCRIPTOR(update_time)) AS r,"
                                + " items AS i WHERE o.currency = r.currency"
                                + " AND i.order_id = o.order_id");
        assertThat(planLines(plan, "LateralSnapshotJoin("))
                .as(
                        "Flink's filter push-down rules (FilterPushDownRules) no longer move a"
                                + " WHERE conjunct above a regular join into its input, down to"
                                + " the SNAPSHOT join it belongs to. Plan:%n%s",
                        plan)
                .singleElement()
                .asString()
                .contains("where=[=(");
    }
}
