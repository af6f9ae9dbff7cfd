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
import dev.lateralsnapshot.planner.functions.SnapshotProcessTableFunction;
import dev.lateralsnapshot.planner.module.LateralSnapshotModule;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.operations.CollectModifyOperation;
import org.apache.flink.table.planner.delegation.PlannerBase;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelVisitor;
import org.apache.calcite.rel.core.TableFunctionScan;
import org.apache.calcite.rex.RexCall;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;

import static org.apache.flink.table.api.Expressions.descriptor;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Guards for {@link BridgedFunctions}: how a function of Flink's function catalog appears in SQL
 * and in a plan.
 */
class BridgedFunctionsTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    @Test
    void tableApiCallsCarryTheirDefinition(TableEnvironment env) {
        Table snapshot =
                env.fromCall(
                        "SNAPSHOT",
                        env.from("rates").asArgument("input"),
                        descriptor("update_time").asArgument("on_time"));
        PlannerBase planner = SnapshotTestEnvironments.flinkPlanner(env);
        RelNode plan =
                planner.translateToRel(new CollectModifyOperation(snapshot.getQueryOperation()));

        List<RexCall> calls = new ArrayList<>();
        new RelVisitor() {
            @Override
            public void visit(RelNode node, int ordinal, RelNode parent) {
                if (node instanceof TableFunctionScan) {
                    calls.add((RexCall) ((TableFunctionScan) node).getCall());
                }
                super.visit(node, ordinal, parent);
            }
        }.go(plan);
        assertThat(calls).hasSize(1);
        assertThat(BridgedFunctions.definitionOf(calls.get(0).getOperator()))
                .as(
                        "Flink no longer bridges a function of its function catalog into a plan as"
                                + " a BridgingSqlFunction that carries the function definition")
                .containsInstanceOf(SnapshotProcessTableFunction.class);
    }

    @Test
    void sqlSeesOnlyTheSqlFunctionWhileTheModuleIsLoaded(TableEnvironment env) {
        assertThat(env.listModules()).contains(LateralSnapshotModule.NAME);
        assertThat(
                        env.sqlQuery(
                                        "SELECT r.* FROM orders AS o JOIN LATERAL SNAPSHOT(input"
                                                + " => TABLE rates, on_time =>"
                                                + " DESCRIPTOR(update_time)) AS r"
                                                + " ON o.currency = r.currency")
                                .getResolvedSchema()
                                .getColumnNames())
                .as(
                        "Calcite's chained operator tables no longer share one overload list, or"
                                + " Flink no longer offers the module's SNAPSHOT to SQL as a"
                                + " BridgingSqlFunction, so LateralSnapshotOperatorTable cannot"
                                + " remove it and SQL gets the process table function's rows")
                .containsExactly("currency", "rate", "update_time");
    }
}
