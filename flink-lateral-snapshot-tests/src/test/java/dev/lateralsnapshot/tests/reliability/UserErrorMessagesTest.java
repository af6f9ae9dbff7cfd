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

package dev.lateralsnapshot.tests.reliability;

import dev.lateralsnapshot.LateralSnapshot;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;
import dev.lateralsnapshot.testutils.environments.TableEnvironments;

import org.apache.flink.table.api.ApiExpression;
import org.apache.flink.table.api.SqlParserException;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ORDERS_WITH_CURRENCY_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.PROBE_AGG_QUERY;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS_WITHOUT_WATERMARK;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_RAND_QUERY;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.apache.flink.table.api.Expressions.$;
import static org.apache.flink.table.api.Expressions.call;
import static org.apache.flink.table.api.Expressions.descriptor;
import static org.apache.flink.table.api.Expressions.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Every way a user can get a LATERAL SNAPSHOT query wrong, in SQL and in the Table API, fails at
 * planning with a {@link ValidationException} or {@link SqlParserException} (a {@link
 * TableException} for the non-deterministic build column, as docs/lateral-snapshot-join.md shows in
 * "Planning errors") whose message tells the user what to change: it names what is wrong, and shows
 * nothing of the planner's insides (no Calcite position prefix, no Java class names, no stack
 * trace), neither in the exception nor in its root cause, which the SQL Client prints. No cause is
 * a {@link NullPointerException} or an {@link AssertionError}: those are bugs that happen to stop
 * the query.
 *
 * <p>These are properties of every message, not its words: the words of the join's messages are
 * asserted once each, in the planner's test of the code that raises them (for example {@code
 * LateralSnapshotValidationTest} for the arguments, {@code LateralSnapshotJoinCaptureRuleTest} for
 * the join), for the same kinds of query as here. Only Flink's messages for mistakes it reports in
 * any query ({@link #mistakesFlinkReportsKeepFlinksMessage}) are checked here alone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UserErrorMessagesTest {

    /** Text that shows a message comes from deep inside the planner, not from a check for users. */
    private static final List<String> PLANNER_INSIDES =
            List.of(
                    "From line",
                    "org.apache.calcite",
                    "java.lang.",
                    "NullPointerException",
                    "AssertionError",
                    "UnsupportedOperationException",
                    "ClassCastException",
                    "Unexpected",
                    "This is a bug",
                    "Caused by",
                    "\tat ");

    /** An expression as Calcite prints it: a column ({@code $0}), a call ({@code *(1000, $0)}). */
    private static final Pattern PLANNER_EXPRESSION = Pattern.compile("\\$\\d|[*+/-]\\(");

    private static final String RATES = "input => TABLE rates, on_time => DESCRIPTOR(update_time)";

    private static final String LOAD_COMPLETED =
            "CAST(TIMESTAMP '2026-01-02 00:00:00' AS TIMESTAMP_LTZ(3))";

    /** One environment for the class, which {@link #keepEnvironment} asks for before any test. */
    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            new TableEnvironmentExtension(UserErrorMessagesTest::createEnvironment);

    private TableEnvironment env;

    @BeforeAll
    void keepEnvironment(TableEnvironment env) {
        this.env = env;
    }

    private static TableEnvironment createEnvironment(Path directory) {
        TableEnvironment env = TableEnvironments.streaming();
        LateralSnapshot.install(env);
        String build = Directories.filesystem(directory, "debezium-json");
        env.executeSql(
                createTable("orders", ORDERS_WITH_CURRENCY_COLUMNS, "'connector' = 'datagen'"));
        env.executeSql(createTable("rates", RATES_COLUMNS, build));
        env.executeSql(createTable("rates_nowm", RATES_COLUMNS_WITHOUT_WATERMARK, build));
        env.executeSql(
                createTable(
                        "rates_micros",
                        "currency STRING, rate DOUBLE, update_time TIMESTAMP(6)",
                        build));
        // The Table API joins tables whose columns have different names.
        env.executeSql(
                createTable(
                        "rates_r",
                        "r_currency STRING, r_rate DOUBLE, update_time TIMESTAMP(3),"
                                + " WATERMARK FOR update_time AS update_time",
                        build));
        env.executeSql("CREATE VIEW probe_agg AS " + PROBE_AGG_QUERY);
        // A view that keeps the column but not its time attribute.
        env.executeSql(
                "CREATE VIEW rates_cast AS SELECT currency, rate,"
                        + " CAST(update_time AS TIMESTAMP(3)) AS update_time FROM rates");
        return env;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("wrongQueries")
    void failsWithAnActionableMessage(
            String mistake, Function<TableEnvironment, Executable> query, String named) {
        Throwable error = rejected(mistake, query);
        // Flink's ExceptionUtils, imported for findThrowable, has no getRootCause.
        String rootMessage =
                org.apache.commons.lang3.exception.ExceptionUtils.getRootCause(error).getMessage();
        for (String shown : List.of(error.getMessage(), rootMessage)) {
            assertThat(shown).as("%s: message", mistake).isNotBlank();
            for (String inside : PLANNER_INSIDES) {
                assertThat(shown)
                        .as("%s: message shown to the user", mistake)
                        .doesNotContain(inside);
            }
            assertThat(shown)
                    .as("%s: shown to the user, no expression as Calcite prints it", mistake)
                    .doesNotContainPattern(PLANNER_EXPRESSION);
        }
        // Actionable: the message names the culprit, what the query got wrong (an argument, a
        // column, a type, a join type, SNAPSHOT itself, the function or the plan node at fault).
        assertThat(error.getMessage() + "\n" + rootMessage).as(mistake).contains(named);
    }

    /**
     * Mistakes that Flink itself reports, before any SNAPSHOT code runs, with the message it gives
     * for the same mistake in any statement: Calcite's position prefix ("From line 1, column 41 to
     * line 1, column 44: Object 'rats' not found") is Flink's own style there. They must still be
     * validation errors that name the culprit, and no bug.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("mistakesFlinkReports")
    void mistakesFlinkReportsKeepFlinksMessage(
            String mistake, Function<TableEnvironment, Executable> query, String named) {
        Throwable error = rejected(mistake, query);
        assertThat(error)
                .as(mistake)
                .isInstanceOfAny(ValidationException.class, SqlParserException.class);
        assertThat(error.getMessage())
                .as(mistake)
                .startsWith("SQL validation failed.")
                .contains(named);
    }

    /** Runs a query that must fail, and returns its error after the checks every error passes. */
    private Throwable rejected(String mistake, Function<TableEnvironment, Executable> query) {
        Throwable error = catchThrowable(() -> query.apply(env).execute());
        assertThat(error)
                .as("%s: the query must be rejected", mistake)
                .isNotNull()
                .isInstanceOfAny(
                        ValidationException.class, SqlParserException.class, TableException.class);
        assertThat(ExceptionUtils.findThrowable(error, NullPointerException.class))
                .as(mistake)
                .isEmpty();
        assertThat(ExceptionUtils.findThrowable(error, AssertionError.class)).as(mistake).isEmpty();
        return error;
    }

    static Stream<Arguments> wrongQueries() {
        List<Arguments> queries = new ArrayList<>();

        // ---- SQL: the arguments ----
        sql(
                queries,
                "on_time without watermark",
                "JOIN LATERAL SNAPSHOT(input => TABLE rates_nowm, on_time =>"
                        + " DESCRIPTOR(update_time)) AS r",
                "'update_time'");
        sql(
                queries,
                "no on_time in streaming",
                "JOIN LATERAL SNAPSHOT(input => TABLE rates) AS r",
                "'on_time'");
        sql(
                queries,
                "on_time of type DOUBLE",
                "JOIN LATERAL SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(rate)) AS r",
                "'DOUBLE'");
        sql(
                queries,
                "on_time of precision 6",
                "JOIN LATERAL SNAPSHOT(input => TABLE rates_micros, on_time =>"
                        + " DESCRIPTOR(update_time)) AS r",
                "TIMESTAMP(6)");
        sql(
                queries,
                "on_time naming a missing column",
                "JOIN LATERAL SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(updated)) AS r",
                "'updated'");
        sql(
                queries,
                "on_time naming a probe column",
                "JOIN LATERAL SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(ts)) AS r",
                "'ts'");
        sql(
                queries,
                "on_time as a string",
                "JOIN LATERAL SNAPSHOT(input => TABLE rates, on_time => 'update_time') AS r",
                "'update_time'");
        sql(
                queries,
                "on_time with two columns",
                "JOIN LATERAL SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(update_time,"
                        + " rate)) AS r",
                "on_time");
        sql(
                queries,
                "on_time of a view that lost the time attribute",
                "JOIN LATERAL SNAPSHOT(input => TABLE rates_cast, on_time =>"
                        + " DESCRIPTOR(update_time)) AS r",
                "'update_time'");
        sql(
                queries,
                "unknown argument",
                "JOIN LATERAL SNAPSHOT(" + RATES + ", ttl => INTERVAL '1' HOUR) AS r",
                "'ttl'");
        sql(
                queries,
                "typo in on_time",
                "JOIN LATERAL SNAPSHOT(input => TABLE rates, on_tme => DESCRIPTOR(update_time)) AS"
                        + " r",
                "'on_tme'");
        sql(
                queries,
                "typo in load_completed_time",
                "JOIN LATERAL SNAPSHOT("
                        + RATES
                        + ", load_complete_time => "
                        + LOAD_COMPLETED
                        + ") AS r",
                "'load_complete_time'");
        sql(
                queries,
                "argument name in upper case",
                "JOIN LATERAL SNAPSHOT(INPUT => TABLE rates, on_time => DESCRIPTOR(update_time)) AS"
                        + " r",
                "'INPUT'");
        sql(
                queries,
                "argument given twice",
                "JOIN LATERAL SNAPSHOT(" + RATES + ", on_time => DESCRIPTOR(update_time)) AS r",
                "'on_time'");
        sql(
                queries,
                "no input",
                "JOIN LATERAL SNAPSHOT(on_time => DESCRIPTOR(update_time)) AS r",
                "'input'");
        sql(
                queries,
                "input without TABLE",
                "JOIN LATERAL SNAPSHOT(input => rates, on_time => DESCRIPTOR(update_time)) AS r",
                "'rates'");
        sql(
                queries,
                "input of a number",
                "JOIN LATERAL SNAPSHOT(input => 1, on_time => DESCRIPTOR(update_time)) AS r",
                "'1'");
        sql(
                queries,
                "input partitioned",
                "JOIN LATERAL SNAPSHOT(input => TABLE rates PARTITION BY currency, on_time =>"
                        + " DESCRIPTOR(update_time)) AS r",
                "PARTITION BY");
        sql(
                queries,
                "named and positional arguments",
                "JOIN LATERAL SNAPSHOT(TABLE rates, on_time => DESCRIPTOR(update_time)) AS r",
                "argument 1");
        sql(
                queries,
                "state_ttl of a number",
                "JOIN LATERAL SNAPSHOT(" + RATES + ", state_ttl => 3600) AS r",
                "'state_ttl'");
        sql(
                queries,
                "state_ttl of a string",
                "JOIN LATERAL SNAPSHOT(" + RATES + ", state_ttl => '1 hour') AS r",
                "'state_ttl'");
        sql(
                queries,
                "negative state_ttl",
                "JOIN LATERAL SNAPSHOT(" + RATES + ", state_ttl => INTERVAL '-1' SECOND) AS r",
                "'state_ttl'");
        sql(
                queries,
                "idle timeout of months",
                "JOIN LATERAL SNAPSHOT("
                        + RATES
                        + ", load_completed_idle_timeout => INTERVAL '1' MONTH) AS r",
                "'load_completed_idle_timeout'");
        sql(
                queries,
                "idle timeout from a probe column",
                "JOIN LATERAL SNAPSHOT("
                        + RATES
                        + ", load_completed_idle_timeout => INTERVAL '1' SECOND * o.order_id) AS r",
                "'load_completed_idle_timeout'");
        sql(
                queries,
                "idle timeout from RAND()",
                "JOIN LATERAL SNAPSHOT("
                        + RATES
                        + ", load_completed_idle_timeout => INTERVAL '1' SECOND * CAST(RAND() * 10"
                        + " AS INT)) AS r",
                "'load_completed_idle_timeout'");
        sql(
                queries,
                "negative computed idle timeout",
                "JOIN LATERAL SNAPSHOT("
                        + RATES
                        + ", load_completed_idle_timeout => INTERVAL '1' SECOND - INTERVAL '1'"
                        + " MINUTE) AS r",
                "'load_completed_idle_timeout'");
        sql(
                queries,
                "NULL idle timeout",
                "JOIN LATERAL SNAPSHOT("
                        + RATES
                        + ", load_completed_idle_timeout => CAST(NULL AS INTERVAL SECOND)) AS r",
                "'load_completed_idle_timeout'");
        sql(
                queries,
                "load_completed_time without time zone",
                "JOIN LATERAL SNAPSHOT("
                        + RATES
                        + ", load_completed_time => TIMESTAMP '2026-01-02 00:00:00') AS r",
                "'load_completed_time'");
        sql(
                queries,
                "load_completed_time of a string",
                "JOIN LATERAL SNAPSHOT("
                        + RATES
                        + ", load_completed_time => '2026-01-02 00:00:00') AS r",
                "'load_completed_time'");
        sql(
                queries,
                "load_completed_time from a probe column",
                "JOIN LATERAL SNAPSHOT("
                        + RATES
                        + ", load_completed_time => CAST(o.ts AS TIMESTAMP_LTZ(3))) AS r",
                "'load_completed_time'");
        sql(
                queries,
                "NULL load_completed_time",
                "JOIN LATERAL SNAPSHOT("
                        + RATES
                        + ", load_completed_time => CAST(NULL AS TIMESTAMP_LTZ(3))) AS r",
                "'load_completed_time'");

        // ---- SQL: the join ----
        sql(queries, "RIGHT JOIN", "RIGHT JOIN LATERAL SNAPSHOT(" + RATES + ") AS r", "RIGHT JOIN");
        sql(queries, "FULL JOIN", "FULL JOIN LATERAL SNAPSHOT(" + RATES + ") AS r", "FULL JOIN");
        statement(
                queries,
                "updating probe side",
                "EXPLAIN SELECT o.currency FROM probe_agg AS o JOIN LATERAL SNAPSHOT("
                        + RATES
                        + ") AS r ON o.currency = r.currency",
                "GroupAggregate");
        statement(
                queries,
                "updating probe side, LEFT JOIN",
                "EXPLAIN SELECT o.currency FROM probe_agg AS o LEFT JOIN LATERAL SNAPSHOT("
                        + RATES
                        + ") AS r ON o.currency = r.currency",
                "GroupAggregate");
        tableApi(
                queries,
                "non-deterministic build column with TRY_RESOLVE",
                UserErrorMessagesTest::nonDeterministicBuildColumn,
                "RAND");
        tableApi(
                queries,
                "batch mode, RIGHT JOIN",
                UserErrorMessagesTest::rightJoinInBatchMode,
                "RIGHT JOIN");

        // ---- SQL: SNAPSHOT in the wrong place ----
        statement(
                queries,
                "SNAPSHOT on its own",
                "EXPLAIN SELECT * FROM TABLE(SNAPSHOT(" + RATES + "))",
                "SNAPSHOT");
        statement(
                queries,
                "SNAPSHOT as the probe side",
                "EXPLAIN SELECT * FROM LATERAL TABLE(SNAPSHOT("
                        + RATES
                        + ")) AS r JOIN orders AS o ON o.currency = r.currency",
                "SNAPSHOT");
        statement(
                queries,
                "SNAPSHOT in a subquery",
                "EXPLAIN SELECT * FROM orders WHERE currency IN (SELECT currency FROM"
                        + " TABLE(SNAPSHOT("
                        + RATES
                        + ")))",
                "SNAPSHOT");
        statement(
                queries,
                "SNAPSHOT in EXISTS",
                "EXPLAIN SELECT * FROM orders AS o WHERE EXISTS (SELECT 1 FROM TABLE(SNAPSHOT("
                        + RATES
                        + ")) AS r WHERE r.currency = o.currency)",
                "SNAPSHOT");
        statement(
                queries,
                "SNAPSHOT as a scalar function",
                "EXPLAIN SELECT SNAPSHOT(" + RATES + ") FROM orders",
                "SNAPSHOT");

        // ---- Table API ----
        tableApi(
                queries,
                "builder without onTime",
                env -> join(env, LateralSnapshot.snapshot(env.from("rates_r")).toTable()),
                "'on_time'");
        tableApi(
                queries,
                "builder onTime of type DOUBLE",
                env ->
                        join(
                                env,
                                LateralSnapshot.snapshot(env.from("rates_r"))
                                        .onTime("r_rate")
                                        .toTable()),
                "'DOUBLE'");
        tableApi(
                queries,
                "builder onTime naming a missing column",
                env ->
                        join(
                                env,
                                LateralSnapshot.snapshot(env.from("rates_r"))
                                        .onTime("rate")
                                        .toTable()),
                "'rate'");
        tableApi(
                queries,
                "builder on a view that lost the time attribute",
                env ->
                        join(
                                env,
                                LateralSnapshot.snapshot(
                                                env.sqlQuery(
                                                        "SELECT currency AS r_currency,"
                                                                + " rate AS r_rate,"
                                                                + " CAST(update_time AS"
                                                                + " TIMESTAMP(3)) AS update_time"
                                                                + " FROM rates"))
                                        .onTime("update_time")
                                        .toTable()),
                "'update_time'");
        tableApi(
                queries,
                "builder with a negative idle timeout",
                env ->
                        join(
                                env,
                                LateralSnapshot.snapshot(env.from("rates_r"))
                                        .onTime("update_time")
                                        .loadCompletedIdleTimeout(Duration.ofSeconds(-1))
                                        .toTable()),
                "'load_completed_idle_timeout'");
        tableApi(
                queries,
                "builder with a negative state TTL",
                env ->
                        join(
                                env,
                                LateralSnapshot.snapshot(env.from("rates_r"))
                                        .onTime("update_time")
                                        .stateTtl(Duration.ofHours(-1))
                                        .toTable()),
                "'state_ttl'");
        tableApi(
                queries,
                "builder, RIGHT JOIN",
                env ->
                        env.from("orders")
                                .rightOuterJoin(
                                        snapshot(env), $("currency").isEqual($("r_currency")))
                                .explain(),
                "RIGHT JOIN");
        tableApi(
                queries,
                "builder, FULL JOIN",
                env ->
                        env.from("orders")
                                .fullOuterJoin(
                                        snapshot(env), $("currency").isEqual($("r_currency")))
                                .explain(),
                "FULL JOIN");
        tableApi(queries, "builder table on its own", env -> snapshot(env).explain(), "SNAPSHOT");
        tableApi(
                queries,
                "builder table as the probe side",
                env ->
                        snapshot(env)
                                .join(env.from("orders"), $("currency").isEqual($("r_currency")))
                                .explain(),
                "SNAPSHOT");
        tableApi(
                queries,
                "builder with an updating probe side",
                env ->
                        env.sqlQuery("SELECT currency, COUNT(*) AS c FROM orders GROUP BY currency")
                                .join(snapshot(env), $("currency").isEqual($("r_currency")))
                                .explain(),
                "GroupAggregate");
        tableApi(
                queries,
                "leftOuterJoinLateral(call(\"SNAPSHOT\", ...), predicate)",
                env ->
                        env.from("orders")
                                .leftOuterJoinLateral(
                                        snapshotCall(env), $("currency").isEqual($("r_currency")))
                                .explain(),
                "leftOuterJoin");
        tableApi(
                queries,
                "fromCall with an unknown argument",
                env ->
                        join(
                                env,
                                env.fromCall(
                                        "SNAPSHOT",
                                        env.from("rates_r").asArgument("input"),
                                        descriptor("update_time").asArgument("on_time"),
                                        lit(Duration.ofHours(1)).asArgument("ttl"))),
                "ttl");
        tableApi(
                queries,
                "fromCall with input of a string",
                env ->
                        join(
                                env,
                                env.fromCall(
                                        "SNAPSHOT",
                                        lit("rates_r").asArgument("input"),
                                        descriptor("update_time").asArgument("on_time"))),
                "input");
        return queries.stream();
    }

    static Stream<Arguments> mistakesFlinkReports() {
        List<Arguments> queries = new ArrayList<>();
        sql(
                queries,
                "input of a missing table",
                "JOIN LATERAL SNAPSHOT(input => TABLE rats, on_time => DESCRIPTOR(update_time)) AS"
                        + " r",
                "Object 'rats' not found");
        sql(
                queries,
                "typo in SNAPSHOT",
                "JOIN LATERAL SNAPHOT(" + RATES + ") AS r",
                "No match found for function signature SNAPHOT");
        sql(
                queries,
                "typo in SNAPSHOT inside TABLE()",
                "JOIN LATERAL TABLE(SNAPHOT(" + RATES + ")) AS r",
                "No match found for function signature SNAPHOT");
        statement(
                queries,
                "INNER JOIN without ON",
                "EXPLAIN SELECT o.order_id FROM orders AS o JOIN LATERAL SNAPSHOT("
                        + RATES
                        + ") AS r",
                "join requires a condition");
        sql(queries, "no alias", "JOIN LATERAL SNAPSHOT(" + RATES + ")", "Table 'r' not found");
        return queries.stream();
    }

    // ---- building the cases ----

    /** A fragment of a query of the orders: what stands between the probe table and ON. */
    private static void sql(
            List<Arguments> queries, String mistake, String fragment, String named) {
        statement(
                queries,
                mistake,
                "EXPLAIN SELECT o.order_id FROM orders AS o "
                        + fragment
                        + " ON o.currency = r.currency",
                named);
    }

    private static void statement(
            List<Arguments> queries, String mistake, String statement, String named) {
        queries.add(
                Arguments.of(
                        "SQL: " + mistake,
                        (Function<TableEnvironment, Executable>)
                                env -> () -> env.executeSql(statement),
                        named));
    }

    private static void tableApi(
            List<Arguments> queries, String mistake, TableApiQuery query, String named) {
        queries.add(
                Arguments.of(
                        "Table API: " + mistake,
                        (Function<TableEnvironment, Executable>) env -> () -> query.run(env),
                        named));
    }

    /** Orders joined with a build-side table, and planned. */
    private static String join(TableEnvironment env, Table snapshot) {
        return env.from("orders").join(snapshot, $("currency").isEqual($("r_currency"))).explain();
    }

    /** A TableException from Flink's determinism check, as for any join ("Planning errors"). */
    private static Object nonDeterministicBuildColumn(TableEnvironment env) {
        env.executeSql("CREATE TEMPORARY VIEW IF NOT EXISTS rates_rand AS " + RATES_RAND_QUERY);
        env.getConfig().set("table.optimizer.non-deterministic-update.strategy", "TRY_RESOLVE");
        try {
            return env.executeSql(
                    "EXPLAIN SELECT o.order_id, r.rate, r.r FROM orders AS o"
                            + " JOIN LATERAL SNAPSHOT(input => TABLE rates_rand,"
                            + " on_time => DESCRIPTOR(update_time)) AS r"
                            + " ON o.currency = r.currency");
        } finally {
            env.getConfig().set("table.optimizer.non-deterministic-update.strategy", "IGNORE");
        }
    }

    private static Object rightJoinInBatchMode(TableEnvironment streaming) {
        TableEnvironment env = TableEnvironments.batch();
        LateralSnapshot.install(env);
        String oneRow = "'connector' = 'datagen', 'number-of-rows' = '1'";
        env.executeSql(createTable("orders_b", BATCH_ORDERS_COLUMNS, oneRow));
        env.executeSql(createTable("rates_b", BATCH_RATES_COLUMNS, oneRow));
        return env.executeSql(
                "EXPLAIN SELECT * FROM orders_b AS o RIGHT JOIN LATERAL"
                        + " SNAPSHOT(input => TABLE rates_b) AS r ON o.currency = r.currency");
    }

    /** The call of a lateral join, rejected with a predicate in a LEFT join ("Table API"). */
    private static ApiExpression snapshotCall(TableEnvironment env) {
        return call(
                "SNAPSHOT",
                env.from("rates_r").asArgument("input"),
                descriptor("update_time").asArgument("on_time"));
    }

    private static Table snapshot(TableEnvironment env) {
        return LateralSnapshot.snapshot(env.from("rates_r")).onTime("update_time").toTable();
    }

    /** A Table API program that is expected to fail. */
    @FunctionalInterface
    private interface TableApiQuery {
        Object run(TableEnvironment env) throws Exception;
    }
}
