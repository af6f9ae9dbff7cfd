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

package dev.lateralsnapshot.planner.functions;

import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.ApiExpression;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.apache.flink.table.api.Expressions.$;
import static org.apache.flink.table.api.Expressions.call;
import static org.apache.flink.table.api.Expressions.descriptor;
import static org.apache.flink.table.api.Expressions.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The errors that only the Table API's {@code SNAPSHOT}, {@link SnapshotProcessTableFunction}, can
 * raise, word for word: the one that points {@code leftOuterJoinLateral} with a predicate to {@code
 * leftOuterJoin}, and Flink's own for an interval argument given as a number, which the function's
 * declared argument types provoke.
 *
 * <p>This is the one test of these messages' words; other tests may check that such a program fails
 * and what the message names, not its text. The errors the Table API shares with SQL are asserted
 * in {@code LateralSnapshotValidationTest} (the arguments) and {@code
 * LateralSnapshotJoinCaptureRuleTest} (the join).
 */
class SnapshotProcessTableFunctionTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    @Test
    void leftOuterJoinLateralWithAPredicateShowsLeftOuterJoin(TableEnvironment env) {
        ApiExpression snapshot =
                call(
                        "SNAPSHOT",
                        env.from("rates_r").asArgument("input"),
                        descriptor("update_time").asArgument("on_time"));

        assertThat(
                        catchThrowable(
                                () ->
                                        env.from("orders")
                                                .leftOuterJoinLateral(
                                                        snapshot,
                                                        $("currency").isEqual($("r_currency")))))
                .isInstanceOf(ValidationException.class)
                .hasNoCause()
                .hasMessage(
                        "LATERAL SNAPSHOT joins cannot be written with"
                                + " leftOuterJoinLateral(call(\"SNAPSHOT\", ...), predicate) on"
                                + " Flink 2.3: Flink accepts no predicate there but TRUE. Join the"
                                + " snapshot table with leftOuterJoin instead, with the same"
                                + " arguments and predicate; it plans and runs exactly like SQL's"
                                + " LEFT JOIN LATERAL SNAPSHOT(...):\n"
                                + "  orders.leftOuterJoin(env.fromCall(\"SNAPSHOT\","
                                + " rates.asArgument(\"input\"),"
                                + " descriptor(\"update_time\").asArgument(\"on_time\")),"
                                + " $(\"currency\").isEqual($(\"r_currency\")))\n"
                                + "where orders, rates and the columns stand for your tables and"
                                + " columns. leftOuterJoinLateral(call(\"SNAPSHOT\", ...)) without"
                                + " a predicate joins ON TRUE, and joinLateral(call(\"SNAPSHOT\","
                                + " ...), predicate) is the INNER join.");
    }

    @Test
    void intervalArgumentsAreNoNumbers(TableEnvironment env) {
        // A number would silently be milliseconds if Flink cast it to the interval.
        assertThat(
                        catchThrowable(
                                () ->
                                        env.fromCall(
                                                "SNAPSHOT",
                                                env.from("rates_r").asArgument("input"),
                                                lit(10).asArgument("state_ttl"))))
                .isInstanceOf(ValidationException.class)
                .hasRootCauseMessage(
                        "Invalid argument type at position 3. Data type INTERVAL DAY(2) TO"
                                + " SECOND(3) expected but INT NOT NULL passed.");
    }
}
