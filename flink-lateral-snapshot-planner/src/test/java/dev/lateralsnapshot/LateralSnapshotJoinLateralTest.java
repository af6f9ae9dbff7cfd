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

package dev.lateralsnapshot;

import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;
import dev.lateralsnapshot.testutils.environments.TableEnvironments;

import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.ArgumentTrait;
import org.apache.flink.table.api.ApiExpression;
import org.apache.flink.table.api.Expressions;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.expressions.Expression;
import org.apache.flink.table.functions.ProcessTableFunction;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.LOAD_COMPLETED;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SQL_LOAD_COMPLETED;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.physicalPlan;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.apache.flink.table.api.Expressions.$;
import static org.apache.flink.table.api.Expressions.call;
import static org.apache.flink.table.api.Expressions.descriptor;
import static org.apache.flink.table.api.Expressions.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The lateral join of the Table API with {@code SNAPSHOT}, {@code
 * orders.joinLateral(call("SNAPSHOT", ...), predicate)} ({@code docs/lateral-snapshot-join.md},
 * "Table API"): it plans like the SQL statement and like the join with the {@code fromCall} table,
 * at any depth of a tree, with or without an equality in the predicate (without a predicate it
 * joins on TRUE; a predicate without an equality fails in Flink's API, and goes into {@code
 * where}), and the form Flink 2.3 cannot run fails with the form that works.
 */
class LateralSnapshotJoinLateralTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    private TableEnvironment env;
    private Table orders;
    private Table rates;

    @BeforeEach
    void readTables(TableEnvironment env) {
        this.env = env;
        orders = env.from("orders");
        rates = env.from("rates_r");
    }

    // ---- plans ----

    /**
     * Equality only, equality with more, and no equality: the SQL predicate, then the Table's. The
     * Table API requires an equality in the predicate of a join, lateral or not: without one the
     * condition goes into {@code where}.
     */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "o.currency = r.r_currency | equality",
                "o.currency = r.r_currency AND o.order_id > r.r_rate | mixed",
                "o.currency < r.r_currency | non-equality"
            })
    void joinLateralPlansLikeSqlAndLikeTheTable(String sqlPredicate, String kind) {
        Expression predicate = predicate(kind);

        boolean equality = !kind.equals("non-equality");
        String plan =
                physicalPlan(
                        select(
                                equality
                                        ? orders.joinLateral(snapshotCall(rates), predicate)
                                        : orders.joinLateral(snapshotCall(rates))
                                                .where(predicate)));

        assertThat(plan)
                .contains("LateralSnapshotJoin(joinType=[InnerJoin]")
                .isEqualTo(sqlPlan("JOIN", sqlPredicate, ""));
        Table table =
                env.fromCall(
                        "SNAPSHOT",
                        rates.asArgument("input"),
                        descriptor("update_time").asArgument("on_time"),
                        lit(LOAD_COMPLETED).asArgument("load_completed_time"));
        Table joined =
                equality ? orders.join(table, predicate) : orders.join(table).where(predicate);
        assertThat(plan).isEqualTo(physicalPlan(select(joined)));
    }

    @Test
    void optionalArgumentsByNameInAnyOrder() {
        Table joined =
                orders.joinLateral(
                        call(
                                "SNAPSHOT",
                                lit(Duration.ofHours(1)).asArgument("state_ttl"),
                                descriptor("update_time").asArgument("on_time"),
                                lit(Duration.ofSeconds(10))
                                        .asArgument("load_completed_idle_timeout"),
                                rates.asArgument("input"),
                                lit(LOAD_COMPLETED).asArgument("load_completed_time")),
                        predicate("equality"));

        assertThat(physicalPlan(select(joined)))
                .isEqualTo(
                        sqlPlan(
                                "JOIN",
                                "o.currency = r.r_currency",
                                ", load_completed_idle_timeout => INTERVAL '10' SECOND,"
                                        + " state_ttl => INTERVAL '1' HOUR"))
                .contains("load_completed_idle_timeout=[10 s], state_ttl=[1 h])");
    }

    @Test
    void withoutPredicateItJoinsOnTrue() {
        String sqlOnTrue = sqlPlan("JOIN", "TRUE", "");
        String sqlLeftOnTrue = sqlPlan("LEFT JOIN", "TRUE", "");

        assertThat(physicalPlan(select(orders.joinLateral(snapshotCall(rates)))))
                .isEqualTo(sqlOnTrue);
        assertThat(physicalPlan(select(orders.leftOuterJoinLateral(snapshotCall(rates)))))
                .isEqualTo(sqlLeftOnTrue)
                .contains("LateralSnapshotJoin(joinType=[LeftOuterJoin]");
    }

    /**
     * {@code on_time} on a virtual metadata column of the build table plans like SQL, also where
     * the column expansion strategy leaves such columns out of {@code SELECT *}.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void onTimeOnAVirtualMetadataColumnPlansLikeSql(
            boolean hiddenFromSelectStar, @TempDir Path directory) {
        if (hiddenFromSelectStar) {
            env.getConfig()
                    .set(
                            "table.column-expansion-strategy",
                            "EXCLUDE_DEFAULT_VIRTUAL_METADATA_COLUMNS");
        }
        env.executeSql(
                createTable(
                        "rates_by_file_time",
                        "r_currency STRING, r_rate DOUBLE,"
                                + " update_time TIMESTAMP_LTZ(3) METADATA FROM"
                                + " 'file.modification-time' VIRTUAL,"
                                + " WATERMARK FOR update_time AS update_time",
                        Directories.filesystem(directory, "csv")));
        Table joined =
                orders.joinLateral(
                        snapshotCall(env.from("rates_by_file_time")), predicate("equality"));

        assertThat(physicalPlan(select(joined)))
                .isEqualTo(
                        physicalPlan(
                                env,
                                "SELECT o.order_id, o.currency, r.r_rate FROM orders AS o"
                                        + " JOIN LATERAL SNAPSHOT(input => TABLE"
                                        + " rates_by_file_time, on_time => DESCRIPTOR(update_time),"
                                        + " load_completed_time => "
                                        + SQL_LOAD_COMPLETED
                                        + ") AS r ON o.currency = r.r_currency"))
                .contains("LateralSnapshotJoin(joinType=[InnerJoin]");
    }

    @Test
    void insideLargerTrees() {
        Table joined = orders.joinLateral(snapshotCall(rates), predicate("equality"));
        Table filtered =
                joined.where($("r_rate").isGreater(1.0))
                        .select($("order_id"), $("r_rate").times(2).as("doubled"));
        Table unioned = select(joined).unionAll(select(joined));
        Table joinedAgain =
                select(joined)
                        .as("id", "cur", "rate")
                        .join(orders.select($("order_id")), $("id").isEqual($("order_id")));

        assertThat(physicalPlan(filtered)).contains("LateralSnapshotJoin(");
        assertThat(physicalPlan(unioned).split("LateralSnapshotJoin\\(", -1)).hasSize(3);
        assertThat(physicalPlan(joinedAgain))
                .contains("LateralSnapshotJoin(", "Join(joinType=[InnerJoin]");
    }

    @Test
    void aViewOfTheJoinReadByTheTableApi() {
        env.createTemporaryView(
                "enriched", select(orders.joinLateral(snapshotCall(rates), predicate("equality"))));

        assertThat(physicalPlan(env.from("enriched").select($("order_id"), $("r_rate"))))
                .contains("LateralSnapshotJoin(joinType=[InnerJoin]");
        // A snapshot of such a view, joined again.
        assertThat(
                        physicalPlan(
                                env.from("enriched")
                                        .where($("r_rate").isNotNull())
                                        .select($("order_id"))))
                .contains("LateralSnapshotJoin(");
    }

    @Test
    void statementSetsAndSinks() {
        env.executeSql(
                createTable(
                        "sink",
                        "order_id BIGINT, currency STRING, r_rate DOUBLE",
                        "'connector' = 'blackhole'"));
        Table joined = select(orders.joinLateral(snapshotCall(rates), predicate("equality")));
        StatementSet statements = env.createStatementSet();
        statements.add(joined.insertInto("sink"));
        statements.add(joined.insertInto("sink"));

        assertThat(statements.explain()).contains("LateralSnapshotJoin(joinType=[InnerJoin]");
        assertThat(joined.insertInto("sink").explain()).contains("LateralSnapshotJoin(");
    }

    @Test
    void batchModePlansLikeSql(@TempDir Path directory) {
        TableEnvironment batch = TableEnvironments.batch();
        LateralSnapshot.install(batch);
        String csv = Directories.filesystem(directory, "csv");
        batch.executeSql(createTable("orders_b", BATCH_ORDERS_COLUMNS, csv));
        batch.executeSql(createTable("rates_b", "r_currency STRING, r_rate DOUBLE", csv));
        String sql =
                physicalPlan(
                        batch,
                        "SELECT o.order_id, o.currency, r.r_rate FROM orders_b AS o"
                                + " JOIN LATERAL SNAPSHOT(input => TABLE rates_b) AS r"
                                + " ON o.currency = r.r_currency");

        Table joined =
                batch.from("orders_b")
                        .joinLateral(
                                call("SNAPSHOT", batch.from("rates_b").asArgument("input")),
                                predicate("equality"));

        assertThat(physicalPlan(select(joined))).isEqualTo(sql).contains("Join(");
    }

    // ---- errors ----

    /**
     * The predicate of a lateral join needs an equality in Flink 2.3's Table API, which checks it
     * before any planner runs; a condition without one goes into {@code where}, as {@link
     * #joinLateralPlansLikeSqlAndLikeTheTable} does.
     */
    @Test
    void joinLateralWithoutAnEqualityInThePredicateFailsInFlinksWords() {
        assertThatThrownBy(() -> orders.joinLateral(snapshotCall(rates), predicate("non-equality")))
                .isInstanceOf(ValidationException.class)
                .hasMessage(
                        "Invalid join condition: lessThan(currency, r_currency). At least one"
                                + " equi-join predicate is required.");
    }

    /** The message is asserted in {@code SnapshotProcessTableFunctionTest}. */
    @Test
    void leftOuterJoinLateralWithPredicateFailsAtOnce() {
        assertThatThrownBy(
                        () ->
                                orders.leftOuterJoinLateral(
                                        snapshotCall(rates), predicate("equality")))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("orders.leftOuterJoin(env.fromCall(\"SNAPSHOT\",");
    }

    @Test
    void sqlOverAViewOfTheJoinSaysWhatToDo() {
        env.createTemporaryView(
                "Enriched", select(orders.joinLateral(snapshotCall(rates), predicate("equality"))));

        assertThatThrownBy(() -> env.sqlQuery("SELECT order_id FROM Enriched"))
                .isInstanceOf(ValidationException.class)
                .hasCauseInstanceOf(UnsupportedOperationException.class)
                .hasMessage(
                        "SQL cannot read the view 'Enriched' on Flink 2.3: it was made from a Table"
                                + " with joinLateral(call(\"SNAPSHOT\", ...)), and SQL expands a"
                                + " view with Flink's own conversion, which cannot translate the"
                                + " table argument of a lateral call. Read the view with the Table"
                                + " API (env.from(\"Enriched\")), make it from"
                                + " orders.join(env.fromCall(\"SNAPSHOT\", ...), predicate), or"
                                + " write it in SQL with JOIN LATERAL SNAPSHOT(...).");
    }

    @Test
    void otherFunctionsWithTableArgumentsKeepFlinksBehaviour(@TempDir Path directory) {
        TableEnvironment plain = TableEnvironments.streaming();
        SnapshotTestEnvironments.createTables(plain, directory);

        Throwable flinks = rowsOfJoinedLaterally(plain);
        Throwable ours = rowsOfJoinedLaterally(env);

        assertThat(flinks).isNotNull();
        assertThat(ours).isInstanceOf(flinks.getClass()).hasMessage(flinks.getMessage());
        Throwable flinksView = sqlOverAViewOfRowsOf(plain);
        Throwable oursView = sqlOverAViewOfRowsOf(env);
        assertThat(flinksView).isNotNull();
        assertThat(oursView)
                .isInstanceOf(flinksView.getClass())
                .hasMessage(flinksView.getMessage());
    }

    private static Throwable sqlOverAViewOfRowsOf(TableEnvironment env) {
        env.createTemporaryView(
                "rows_of_view",
                env.from("orders")
                        .joinLateral(call("ROWS_OF", env.from("rates_r").asArgument("r"))));
        return catchThrowable(() -> env.sqlQuery("SELECT * FROM rows_of_view"));
    }

    private static Throwable rowsOfJoinedLaterally(TableEnvironment env) {
        env.createTemporarySystemFunction("ROWS_OF", RowsOf.class);
        return catchThrowable(
                () ->
                        env.from("orders")
                                .joinLateral(call("ROWS_OF", env.from("rates_r").asArgument("r")))
                                .explain());
    }

    /** A process table function with a table argument, of a kind Flink knows. */
    public static class RowsOf extends ProcessTableFunction<String> {

        public void eval(@ArgumentHint(ArgumentTrait.ROW_SEMANTIC_TABLE) Row r) {
            collect(r.toString());
        }
    }

    // ---- helpers ----

    /** The call of the Table API example, with a fixed load completion time. */
    private static ApiExpression snapshotCall(Table rates) {
        return call(
                "SNAPSHOT",
                rates.asArgument("input"),
                descriptor("update_time").asArgument("on_time"),
                lit(LOAD_COMPLETED).asArgument("load_completed_time"));
    }

    private static Expression predicate(String kind) {
        switch (kind) {
            case "equality":
                return $("currency").isEqual($("r_currency"));
            case "mixed":
                return Expressions.and(
                        $("currency").isEqual($("r_currency")),
                        $("order_id").isGreater($("r_rate")));
            default:
                return $("currency").isLess($("r_currency"));
        }
    }

    private static Table select(Table joined) {
        return joined.select($("order_id"), $("currency"), $("r_rate"));
    }

    /** The plan of the SQL statement that the Table API queries of this test express. */
    private String sqlPlan(String join, String predicate, String moreArguments) {
        return physicalPlan(
                env,
                "SELECT o.order_id, o.currency, r.r_rate FROM orders AS o "
                        + join
                        + " LATERAL SNAPSHOT(input => TABLE rates_r,"
                        + " on_time => DESCRIPTOR(update_time),"
                        + " load_completed_time => "
                        + SQL_LOAD_COMPLETED
                        + moreArguments
                        + ") AS r ON "
                        + predicate);
    }
}
