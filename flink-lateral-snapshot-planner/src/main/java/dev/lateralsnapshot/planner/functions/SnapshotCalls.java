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

import dev.lateralsnapshot.planner.internal.BridgedFunctions;

import org.apache.flink.table.api.ValidationException;

import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlOperator;

import javax.annotation.Nullable;

import java.util.List;

/**
 * Calls of {@code SNAPSHOT} in a plan, in both forms: SQL's {@link SnapshotTableFunction}, and the
 * Table API's {@link SnapshotProcessTableFunction}, which Flink bridges into the plan from its
 * function catalog. Everything that follows the validation reads calls through this class, so that
 * one piece of code serves both.
 */
public final class SnapshotCalls {

    /** Examples for the error about a misplaced {@code SNAPSHOT}, in the form the user wrote. */
    private static final String SQL_EXAMPLE =
            "SELECT * FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE rates, on_time =>"
                    + " DESCRIPTOR(update_time)) AS r ON o.currency = r.currency.";

    private static final String TABLE_API_EXAMPLE =
            "orders.join(LateralSnapshot.snapshot(rates).onTime(\"update_time\").toTable(),"
                    + " $(\"currency\").isEqual($(\"r_currency\"))), or leftOuterJoin(...).";

    private SnapshotCalls() {}

    /** Whether the expression is a call of {@code SNAPSHOT}, from SQL or from the Table API. */
    public static boolean isSnapshotCall(@Nullable RexNode call) {
        return isSqlCall(call)
                || (call instanceof RexCall && isTableApiSnapshot(((RexCall) call).getOperator()));
    }

    /** Whether the expression is a call of the SQL form of {@code SNAPSHOT}. */
    public static boolean isSqlCall(@Nullable RexNode call) {
        return call instanceof RexCall
                && ((RexCall) call).getOperator() == SnapshotTableFunction.INSTANCE;
    }

    /** Whether the operator is Flink's bridge of the Table API's {@code SNAPSHOT}. */
    static boolean isTableApiSnapshot(SqlOperator operator) {
        return BridgedFunctions.definitionOf(operator)
                .filter(definition -> definition instanceof SnapshotProcessTableFunction)
                .isPresent();
    }

    /**
     * The operands of a call of either form in the order of {@link
     * SnapshotTableFunction#PARAMETERS}.
     */
    static List<RexNode> operandsInParameterOrder(RexCall call) {
        return isSqlCall(call)
                ? call.getOperands()
                : SnapshotProcessTableFunction.operandsInSqlOrder(call.getOperands());
    }

    /**
     * The error for {@code SNAPSHOT} anywhere but as the build side of a LATERAL join.
     *
     * @param sql whether the user wrote the SQL form, which the example then shows
     */
    public static ValidationException misplaced(boolean sql) {
        return new ValidationException(
                "The SNAPSHOT function can only be used as the build side (right-hand side) of a"
                        + " LATERAL join. It cannot be used as a standalone table function or"
                        + " outside of a LATERAL context. For example: "
                        + (sql ? SQL_EXAMPLE : TABLE_API_EXAMPLE));
    }
}
