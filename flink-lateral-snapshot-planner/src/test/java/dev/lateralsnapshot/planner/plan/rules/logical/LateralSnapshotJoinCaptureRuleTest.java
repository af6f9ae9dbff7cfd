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

import dev.lateralsnapshot.LateralSnapshot;
import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.Arrays;

import static dev.lateralsnapshot.planner.PlanningErrors.assertRejected;
import static dev.lateralsnapshot.planner.PlanningErrors.assertRootCause;
import static dev.lateralsnapshot.planner.PlanningErrors.ordersJoining;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.apache.flink.table.api.Expressions.$;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The errors for a join of the wrong shape, word for word, in SQL and in the Table API: a join type
 * other than INNER and LEFT ({@link SnapshotJoinMatch}), {@code SNAPSHOT} anywhere but on the build
 * side of a LATERAL join ({@link SnapshotScans}; {@code LateralSnapshotOperatorTable} where SQL
 * calls it as a scalar function), and in streaming mode an {@code on_time} that is missing or no
 * rowtime attribute ({@link LateralSnapshotJoinCaptureRule}). The message of each must be the root
 * cause of a {@link ValidationException}.
 *
 * <p>This is the one test of these messages' words; other tests may check that such a query fails
 * and what the message names, not its text.
 */
class LateralSnapshotJoinCaptureRuleTest {

    private static final String SNAPSHOT_RATES =
            "SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(update_time))";

    private static final String MISPLACED_IN_SQL =
            "The SNAPSHOT function can only be used as the build side (right-hand side) of a"
                    + " LATERAL join. It cannot be used as a standalone table function or outside"
                    + " of a LATERAL context. For example: SELECT * FROM orders AS o JOIN LATERAL"
                    + " SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(update_time)) AS r"
                    + " ON o.currency = r.currency.";

    private static final String NO_ROWTIME_ATTRIBUTE =
            "Argument 'on_time' of SNAPSHOT must reference a rowtime attribute (a column with a"
                    + " watermark), but column 'update_time' is not one.";

    private static final String ON_TIME_REQUIRED =
            "LATERAL SNAPSHOT requires the 'on_time' argument to identify the build-side rowtime"
                    + " attribute.";

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    // ---- SQL ----

    /** A table without watermark, and a view that keeps the column but not its time attribute. */
    @ParameterizedTest
    @ValueSource(strings = {"rates_nowm", "rates_cast"})
    void onTimeThatIsNoRowtimeAttribute(String table, TableEnvironment env) {
        env.executeSql(
                "CREATE VIEW rates_cast AS SELECT currency, rate,"
                        + " CAST(update_time AS TIMESTAMP(3)) AS update_time FROM rates");
        assertRejected(
                env,
                ordersJoining(
                        "JOIN LATERAL SNAPSHOT(input => TABLE "
                                + table
                                + ", on_time => DESCRIPTOR(update_time)) AS r"),
                NO_ROWTIME_ATTRIBUTE);
    }

    @Test
    void missingOnTimeInStreaming(TableEnvironment env) {
        assertRejected(
                env,
                ordersJoining("JOIN LATERAL SNAPSHOT(input => TABLE rates) AS r"),
                ON_TIME_REQUIRED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"RIGHT", "FULL"})
    void rightAndFullJoin(String joinType, TableEnvironment env) {
        assertRejected(
                env,
                ordersJoining(joinType + " JOIN LATERAL " + SNAPSHOT_RATES + " AS r"),
                "LATERAL SNAPSHOT join only supports INNER JOIN and LEFT OUTER JOIN, but was "
                        + joinType
                        + " JOIN.");
    }

    @Test
    void rightJoinInBatchMode(@TempDir Path directory) {
        TableEnvironment batch = SnapshotTestEnvironments.batch(directory, directory);
        assertRootCause(
                        () ->
                                batch.explainSql(
                                        "SELECT * FROM orders_b AS o RIGHT JOIN LATERAL"
                                                + " SNAPSHOT(input => TABLE rates_b) AS r"
                                                + " ON o.currency = r.currency"))
                .isInstanceOf(ValidationException.class)
                .hasMessage(
                        "LATERAL SNAPSHOT join only supports INNER JOIN and LEFT OUTER JOIN, but"
                                + " was RIGHT JOIN.");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "SELECT * FROM TABLE(" + SNAPSHOT_RATES + ")",
                "SELECT * FROM LATERAL TABLE(" + SNAPSHOT_RATES + ") AS r",
                "SELECT * FROM LATERAL TABLE("
                        + SNAPSHOT_RATES
                        + ") AS r JOIN orders AS o"
                        + " ON o.currency = r.currency",
                "SELECT * FROM orders WHERE currency IN (SELECT currency FROM TABLE("
                        + SNAPSHOT_RATES
                        + "))",
                "SELECT * FROM orders AS o WHERE EXISTS (SELECT 1 FROM TABLE("
                        + SNAPSHOT_RATES
                        + ") AS r WHERE r.currency = o.currency)",
                "SELECT " + SNAPSHOT_RATES + " FROM orders",
                "SELECT order_id FROM orders WHERE " + SNAPSHOT_RATES + " IS NOT NULL"
            })
    void snapshotOutsideTheBuildSideOfALateralJoin(String query, TableEnvironment env) {
        assertRejected(env, query, MISPLACED_IN_SQL);
    }

    // ---- the Table API ----

    @Test
    void onTimeWithoutWatermarkOrNotGiven(TableEnvironment env, @TempDir Path directory) {
        env.executeSql(
                createTable(
                        "rates_nowm_r",
                        "r_currency STRING, r_rate DOUBLE, update_time TIMESTAMP(3)",
                        Directories.filesystem(directory, "debezium-json")));
        Table orders = env.from("orders");
        Table withoutWatermark =
                LateralSnapshot.snapshot(env.from("rates_nowm_r")).onTime("update_time").toTable();
        Table withoutOnTime = LateralSnapshot.snapshot(env.from("rates_r")).toTable();

        assertThatThrownBy(
                        () ->
                                orders.join(
                                                withoutWatermark,
                                                $("currency").isEqual($("r_currency")))
                                        .explain())
                .isInstanceOf(ValidationException.class)
                .hasMessage(NO_ROWTIME_ATTRIBUTE);
        assertThatThrownBy(
                        () ->
                                orders.join(withoutOnTime, $("currency").isEqual($("r_currency")))
                                        .explain())
                .isInstanceOf(ValidationException.class)
                .hasMessage(ON_TIME_REQUIRED);
    }

    @Test
    void onTimeOfAQueryThatLostTheTimeAttribute(TableEnvironment env) {
        Table withoutTimeAttribute =
                LateralSnapshot.snapshot(
                                env.sqlQuery(
                                        "SELECT currency AS r_currency, rate AS r_rate,"
                                                + " CAST(update_time AS TIMESTAMP(3)) AS"
                                                + " update_time FROM rates"))
                        .onTime("update_time")
                        .toTable();

        assertThatThrownBy(
                        () ->
                                env.from("orders")
                                        .join(
                                                withoutTimeAttribute,
                                                $("currency").isEqual($("r_currency")))
                                        .explain())
                .isInstanceOf(ValidationException.class)
                .hasMessage(NO_ROWTIME_ATTRIBUTE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"rightOuterJoin", "fullOuterJoin"})
    void rightAndFullJoinInTheTableApi(String method, TableEnvironment env) {
        Table orders = env.from("orders");
        Table snapshot =
                LateralSnapshot.snapshot(env.from("rates_r")).onTime("update_time").toTable();
        Table joined =
                method.equals("rightOuterJoin")
                        ? orders.rightOuterJoin(snapshot, $("currency").isEqual($("r_currency")))
                        : orders.fullOuterJoin(snapshot, $("currency").isEqual($("r_currency")));

        assertThatThrownBy(joined::explain)
                .isInstanceOf(ValidationException.class)
                .hasMessage(
                        "LATERAL SNAPSHOT join only supports INNER JOIN and LEFT OUTER JOIN, but"
                                + " was "
                                + (method.equals("rightOuterJoin") ? "RIGHT" : "FULL")
                                + " JOIN.");
    }

    @Test
    void snapshotOutsideTheBuildSideOfAJoinInTheTableApi(TableEnvironment env) {
        Table snapshot =
                LateralSnapshot.snapshot(env.from("rates_r")).onTime("update_time").toTable();

        for (Table misplaced :
                Arrays.asList(
                        snapshot,
                        snapshot.join(
                                env.from("orders"), $("currency").isEqual($("r_currency"))))) {
            assertThatThrownBy(misplaced::explain)
                    .isInstanceOf(ValidationException.class)
                    .hasMessage(
                            "The SNAPSHOT function can only be used as the build side (right-hand"
                                    + " side) of a LATERAL join. It cannot be used as a standalone"
                                    + " table function or outside of a LATERAL context. For"
                                    + " example:"
                                    + " orders.join(LateralSnapshot.snapshot(rates)"
                                    + ".onTime(\"update_time\").toTable(),"
                                    + " $(\"currency\").isEqual($(\"r_currency\"))), or"
                                    + " leftOuterJoin(...).");
        }
    }
}
