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

package dev.lateralsnapshot.e2e.programs;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;

import static org.apache.flink.table.api.Expressions.$;
import static org.apache.flink.table.api.Expressions.call;
import static org.apache.flink.table.api.Expressions.descriptor;

/**
 * A plain Table API program, as users submit them with {@code flink run}: it knows nothing of this
 * library (no {@code LateralSnapshot.install}), yet LATERAL SNAPSHOT plans and runs, because the
 * planner comes from the drop-in jar in {@code lib/}.
 *
 * <p>Arguments: a file of {@code CREATE TABLE} statements for the tables {@code orders} and {@code
 * rates} of docs/lateral-snapshot-join.md ("Syntax"), each ending with {@code ;} and a line break,
 * and an {@code INSERT} statement. Prints the plans of an INNER join of the two in the Table API
 * ({@code joinLateral(call("SNAPSHOT", ...), predicate)}), of a LEFT JOIN ({@code
 * leftOuterJoin(fromCall("SNAPSHOT", ...), predicate)}), each after a line that names it, and the
 * plan of the statement, then submits the statement.
 */
public final class TableApiProgram {

    /** The line before the plan of the INNER join written with {@code joinLateral}. */
    public static final String JOIN_LATERAL_PLAN = "== Table API: joinLateral ==";

    /** The line before the plan of the LEFT join written with {@code leftOuterJoin}. */
    public static final String LEFT_OUTER_JOIN_PLAN = "== Table API: leftOuterJoin ==";

    /** The line before the plan of the statement. */
    public static final String STATEMENT_PLAN = "== SQL statement ==";

    private TableApiProgram() {}

    public static void main(String[] args) throws Exception {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.getConfig().setLocalTimeZone(ZoneOffset.UTC);
        for (String statement : Files.readString(Path.of(args[0])).split(";\n")) {
            if (!statement.isBlank()) {
                env.executeSql(statement);
            }
        }

        // The Table API joins tables whose column names differ.
        Table rates = env.from("rates").as("r_currency", "r_rate", "r_update_time");
        System.out.println(JOIN_LATERAL_PLAN);
        System.out.println(
                env.from("orders")
                        .joinLateral(
                                call(
                                        "SNAPSHOT",
                                        rates.asArgument("input"),
                                        descriptor("r_update_time").asArgument("on_time")),
                                $("currency").isEqual($("r_currency")))
                        .select($("order_id"), $("currency"), $("r_rate"))
                        .explain());

        System.out.println(LEFT_OUTER_JOIN_PLAN);
        Table snapshot =
                env.fromCall(
                        "SNAPSHOT",
                        rates.asArgument("input"),
                        descriptor("r_update_time").asArgument("on_time"));
        System.out.println(
                env.from("orders")
                        .leftOuterJoin(snapshot, $("currency").isEqual($("r_currency")))
                        .select($("order_id"), $("currency"), $("r_rate"))
                        .explain());

        String insert = args[1].trim().replaceAll(";$", "");
        System.out.println(STATEMENT_PLAN);
        System.out.println(env.explainSql(insert));
        TableResult submitted = env.executeSql(insert);
        System.out.println("Submitted job " + submitted.getJobClient().orElseThrow().getJobID());
    }
}
