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

import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.ArgumentTrait;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.FunctionHint;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.internal.TableImpl;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.functions.ProcessTableFunction;
import org.apache.flink.table.operations.CorrelatedFunctionQueryOperation;
import org.apache.flink.table.operations.JoinQueryOperation;
import org.apache.flink.table.operations.QueryOperation;
import org.apache.flink.table.planner.operations.PlannerQueryOperation;
import org.apache.flink.types.Row;

import org.apache.calcite.plan.RelOptUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.function.Predicate;

import static org.apache.flink.table.api.Expressions.$;
import static org.apache.flink.table.api.Expressions.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Guards for {@link CorrelatedFunctionJoins}: the tree {@code joinLateral} builds for a function
 * with a table argument, that Flink cannot convert it, and that the subclass of Flink's converter
 * converts it as the join with the function's table, at any depth and inside a view.
 */
class CorrelatedFunctionJoinsTest {

    private static final Predicate<FunctionDefinition> ROWS_OF =
            definition -> definition instanceof RowsOf;

    private TableEnvironment env;
    private Table lateral;

    @BeforeEach
    void createTables() {
        env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql("CREATE TABLE l (k INT) WITH ('connector' = 'datagen')");
        env.executeSql("CREATE TABLE r (rk INT) WITH ('connector' = 'datagen')");
        lateral =
                env.from("l")
                        .joinLateral(
                                call(RowsOf.class, env.from("r").asArgument("input")),
                                $("k").isEqual($("rk")));
    }

    @Test
    void joinLateralBuildsACorrelatedJoinWithTheCall() {
        QueryOperation operation = operation(lateral);

        assertThat(operation)
                .as("joinLateral no longer builds a correlated join of the call")
                .isInstanceOfSatisfying(
                        JoinQueryOperation.class,
                        join -> {
                            assertThat(join.isCorrelated()).isTrue();
                            assertThat(join.getChildren().get(1))
                                    .isInstanceOf(CorrelatedFunctionQueryOperation.class);
                        });
        assertThat(CorrelatedFunctionJoins.contains(operation, ROWS_OF)).isTrue();
        assertThat(CorrelatedFunctionJoins.contains(operation, definition -> false)).isFalse();
    }

    @Test
    void flinkCannotConvertItItself() {
        assertThatThrownBy(lateral::explain)
                .as(
                        "Flink converts joinLateral with a table argument itself now: the"
                                + " conversion of CorrelatedFunctionJoins may no longer be needed")
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessage("TableReferenceExpression:input");
    }

    @Test
    void convertsAsTheJoinWithTheFunctionsTable() {
        Table fromCall =
                env.from("l")
                        .join(
                                env.fromCall(RowsOf.class, env.from("r").asArgument("input")),
                                $("k").isEqual($("rk")));

        assertThat(converted(lateral.select($("k"))))
                .isEqualTo(converted(fromCall.select($("k"))))
                .contains("LogicalJoin(condition=[=($0, $1)], joinType=[inner])")
                .contains("LogicalTableFunctionScan(invocation=[");
    }

    @Test
    void convertsInsideAView() {
        env.createTemporaryView("v", lateral);

        Table fromView = env.from("v").where($("k").isGreater(0));

        assertThat(CorrelatedFunctionJoins.contains(operation(fromView), ROWS_OF)).isTrue();
        assertThat(converted(fromView)).contains("LogicalTableFunctionScan(invocation=[");
    }

    private String converted(Table table) {
        QueryOperation converted =
                CorrelatedFunctionJoins.convert(
                        TableEnvironmentPlanners.of(env), operation(table), ROWS_OF);
        assertThat(converted).isInstanceOf(PlannerQueryOperation.class);
        return RelOptUtil.toString(((PlannerQueryOperation) converted).getCalciteTree());
    }

    private static QueryOperation operation(Table table) {
        return ((TableImpl) table).getQueryOperation();
    }

    /** A process table function with a table argument. */
    @FunctionHint(output = @DataTypeHint("ROW<rk INT>"))
    public static class RowsOf extends ProcessTableFunction<Row> {

        public void eval(@ArgumentHint(ArgumentTrait.ROW_SEMANTIC_TABLE) Row input) {
            collect(input);
        }
    }
}
