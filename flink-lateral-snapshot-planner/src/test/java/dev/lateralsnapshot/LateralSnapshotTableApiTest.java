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
import dev.lateralsnapshot.planner.module.LateralSnapshotModule;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;
import dev.lateralsnapshot.testutils.environments.TableEnvironments;

import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.delegation.PlannerFactory;
import org.apache.flink.table.module.ModuleEntry;
import org.apache.flink.table.planner.calcite.FlinkContext;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.BiFunction;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.LOAD_COMPLETED;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SQL_LOAD_COMPLETED;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.physicalPlan;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.planLines;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.apache.flink.table.api.Expressions.$;
import static org.apache.flink.table.api.Expressions.call;
import static org.apache.flink.table.api.Expressions.descriptor;
import static org.apache.flink.table.api.Expressions.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The LATERAL SNAPSHOT join in the Table API: {@code orders.join(snapshot, predicate)} and {@code
 * leftOuterJoin} with the snapshot table of {@code env.fromCall("SNAPSHOT", ...)} or of {@link
 * LateralSnapshot#snapshot}, compared with the SQL statement on the same tables ({@code
 * docs/lateral-snapshot-join.md}, "Table API"), and the ways to install it. Its errors are asserted
 * with those of SQL, in the tests of the code that raises them ({@code
 * SnapshotProcessTableFunctionTest} has those of the Table API only).
 */
class LateralSnapshotTableApiTest {

    /** The optional arguments of the tests that give all of them, after load_completed_time. */
    private static final String SQL_MORE_ARGUMENTS =
            ", load_completed_idle_timeout => INTERVAL '10' SECOND, state_ttl => INTERVAL '1' HOUR";

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

    @ParameterizedTest
    @ValueSource(strings = {"JOIN", "LEFT JOIN"})
    void fromCallPlansLikeSql(String join) {
        Table snapshot = snapshotByName(env, rates);

        String plan = physicalPlan(select(join(join).apply(orders, snapshot)));

        assertThat(plan).isEqualTo(sqlPlan(join, "")).contains(joinNode(join));
    }

    @ParameterizedTest
    @ValueSource(strings = {"JOIN", "LEFT JOIN"})
    void optionalArgumentsByNamePlanLikeSql(String join) {
        Table snapshot =
                env.fromCall(
                        "SNAPSHOT",
                        lit(Duration.ofHours(1)).asArgument("state_ttl"),
                        descriptor("update_time").asArgument("on_time"),
                        lit(Duration.ofSeconds(10)).asArgument("load_completed_idle_timeout"),
                        rates.asArgument("input"),
                        lit(LOAD_COMPLETED).asArgument("load_completed_time"));

        String plan = physicalPlan(select(join(join).apply(orders, snapshot)));

        assertThat(plan).isEqualTo(sqlPlan(join, SQL_MORE_ARGUMENTS));
        assertThat(planLines(plan, "LateralSnapshotJoin(").get(0))
                .endsWith(
                        "on_time=[update_time], load_completed_time=[2026-01-02T00:00:00Z],"
                                + " load_completed_idle_timeout=[10 s], state_ttl=[1 h])");
    }

    @ParameterizedTest
    @ValueSource(strings = {"JOIN", "LEFT JOIN"})
    void builderPlansLikeSql(String join) {
        Table snapshot =
                LateralSnapshot.snapshot(rates)
                        .onTime("update_time")
                        .loadCompletedTime(LOAD_COMPLETED)
                        .loadCompletedIdleTimeout(Duration.ofSeconds(10))
                        .stateTtl(Duration.ofHours(1))
                        .toTable();

        String plan = physicalPlan(select(join(join).apply(orders, snapshot)));

        assertThat(plan).isEqualTo(sqlPlan(join, SQL_MORE_ARGUMENTS)).contains(joinNode(join));
    }

    @Test
    void builderTableHasTheColumnsOfTheInput() {
        Table byName =
                env.fromCall(
                        "SNAPSHOT",
                        rates.asArgument("input"),
                        descriptor("update_time").asArgument("on_time"));
        Table built = LateralSnapshot.snapshot(rates).onTime("update_time").toTable();

        assertThat(built.getResolvedSchema().getColumnNames())
                .containsExactly("r_currency", "r_rate", "update_time");
        // Flink adds a copy of the on_time column to every process table function with on_time.
        assertThat(byName.getResolvedSchema().getColumnNames())
                .containsExactly("r_currency", "r_rate", "update_time", "rowtime");
    }

    @Test
    void flinksRowtimeColumnLosesItsTimeAttributeLikeTheOnTimeColumn() {
        Table snapshot = snapshotByName(env, rates);

        String plan =
                physicalPlan(
                        orders.join(snapshot, $("currency").isEqual($("r_currency")))
                                .select($("order_id"), $("update_time"), $("rowtime")));

        assertThat(plan)
                .contains(
                        "CAST(update_time AS TIMESTAMP(3)) AS update_time,"
                                + " CAST(rowtime AS TIMESTAMP(3) NOT NULL) AS rowtime");
    }

    @Test
    void joinWithoutEqualityPredicateThroughWhere() {
        // join(table, predicate) requires an equality predicate in the Table API.
        Table snapshot =
                LateralSnapshot.snapshot(rates)
                        .onTime("update_time")
                        .loadCompletedTime(LOAD_COMPLETED)
                        .toTable();

        String plan =
                physicalPlan(
                        orders.join(snapshot)
                                .where($("currency").isLess($("r_currency")))
                                .select($("order_id"), $("currency"), $("r_rate")));

        assertThat(plan)
                .isEqualTo(
                        physicalPlan(
                                env,
                                "SELECT o.order_id, o.currency, r.r_rate FROM orders AS o"
                                        + " CROSS JOIN LATERAL SNAPSHOT(input => TABLE rates_r,"
                                        + " on_time => DESCRIPTOR(update_time),"
                                        + " load_completed_time => "
                                        + SQL_LOAD_COMPLETED
                                        + ") AS r WHERE o.currency < r.r_currency"));
        assertThat(planLines(plan, "Exchange("))
                .containsExactly(
                        ":- Exchange(distribution=[single])", "+- Exchange(distribution=[single])");
    }

    @ParameterizedTest
    @ValueSource(strings = {"JOIN", "LEFT JOIN"})
    void batchModePlansLikeSql(String join, @TempDir Path directory) {
        TableEnvironment batch = TableEnvironments.batch();
        LateralSnapshot.install(batch);
        String csv = Directories.filesystem(directory, "csv");
        batch.executeSql(createTable("orders_b", BATCH_ORDERS_COLUMNS, csv));
        batch.executeSql(createTable("rates_b", "r_currency STRING, r_rate DOUBLE", csv));
        Table ordersB = batch.from("orders_b");
        Table ratesB = batch.from("rates_b");
        String sql =
                physicalPlan(
                        batch,
                        "SELECT o.order_id, o.currency, r.r_rate FROM orders_b AS o "
                                + join
                                + " LATERAL SNAPSHOT(input => TABLE rates_b,"
                                + " state_ttl => INTERVAL '1' HOUR) AS r"
                                + " ON o.currency = r.r_currency");

        Table byName =
                batch.fromCall(
                        "SNAPSHOT",
                        ratesB.asArgument("input"),
                        lit(Duration.ofHours(1)).asArgument("state_ttl"));
        Table built = LateralSnapshot.snapshot(ratesB).stateTtl(Duration.ofHours(1)).toTable();

        assertThat(sql).contains("Join(").doesNotContain("LateralSnapshotJoin");
        assertThat(physicalPlan(select(join(join).apply(ordersB, byName)))).isEqualTo(sql);
        assertThat(physicalPlan(select(join(join).apply(ordersB, built)))).isEqualTo(sql);
    }

    // ---- installation ----

    @Test
    void installLoadsTheModuleOnce() {
        LateralSnapshot.install(env);
        LateralSnapshot.install(env);

        assertThat(Arrays.stream(env.listFullModules()).map(ModuleEntry::name))
                .containsExactly("core", LateralSnapshotModule.NAME);
    }

    @Test
    void installInTheConfigurationOnlyIsEnoughForTheBuilder(@TempDir Path directory) {
        TableEnvironment configured = environmentWithoutInstall(directory);
        LateralSnapshot.install(configured.getConfig());
        Table snapshot =
                LateralSnapshot.snapshot(configured.from("rates_r"))
                        .onTime("update_time")
                        .loadCompletedTime(LOAD_COMPLETED)
                        .toTable();

        assertThat(
                        physicalPlan(
                                select(
                                        configured
                                                .from("orders")
                                                .join(
                                                        snapshot,
                                                        $("currency").isEqual($("r_currency"))))))
                .isEqualTo(sqlPlan("JOIN", ""));
        // A name is looked up in the environment's function catalog, which a configuration does
        // not reach.
        assertThatThrownBy(
                        () ->
                                configured.fromCall(
                                        "SNAPSHOT", configured.from("rates_r").asArgument("input")))
                .isInstanceOf(ValidationException.class)
                .hasMessage("Undefined function: SNAPSHOT");
    }

    @Test
    void installFromAPlannerFactoryFindsSnapshotByName(@TempDir Path directory) {
        TableEnvironment created = environmentWithoutInstall(directory);
        // What a planner factory is given for each environment it creates a planner for.
        FlinkContext parts = (SnapshotTestEnvironments.flinkPlanner(created)).getFlinkContext();
        LateralSnapshot.install(
                new PlannerFactory.DefaultPlannerContext(
                        null,
                        created.getConfig(),
                        parts.getClassLoader(),
                        parts.getModuleManager(),
                        parts.getCatalogManager(),
                        parts.getFunctionCatalog()));
        Table snapshot = snapshotByName(created, created.from("rates_r"));

        assertThat(LateralSnapshot.isInstalled(created.getConfig())).isTrue();
        assertThat(
                        physicalPlan(
                                select(
                                        created.from("orders")
                                                .join(
                                                        snapshot,
                                                        $("currency").isEqual($("r_currency"))))))
                .isEqualTo(sqlPlan("JOIN", ""));
    }

    @ParameterizedTest
    @ValueSource(strings = {"CREATE FUNCTION", "CREATE TEMPORARY FUNCTION"})
    void aUserFunctionNamedSnapshotKeepsItsName(String create) {
        String sqlPlan = sqlPlan("JOIN", "");
        env.executeSql(
                create + " snapshot AS '" + LateralSnapshotInstallTest.Split.class.getName() + "'");

        String plan =
                physicalPlan(
                        orders.joinLateral(call("SNAPSHOT", $("currency")).as("part"))
                                .select($("order_id"), $("part")));

        assertThat(plan)
                .contains("Correlate(invocation=[SNAPSHOT($1)]", "VARCHAR(2147483647) part")
                .doesNotContain("LateralSnapshotJoin");
        // The builder does not look the name up.
        assertThat(
                        physicalPlan(
                                select(
                                        orders.join(
                                                LateralSnapshot.snapshot(rates)
                                                        .onTime("update_time")
                                                        .loadCompletedTime(LOAD_COMPLETED)
                                                        .toTable(),
                                                $("currency").isEqual($("r_currency"))))))
                .isEqualTo(sqlPlan);
    }

    // ---- helpers ----

    /** A streaming environment with the tables of these tests, without the join installed. */
    private static TableEnvironment environmentWithoutInstall(Path directory) {
        TableEnvironment plain = TableEnvironments.streaming();
        SnapshotTestEnvironments.createTables(plain, directory);
        return plain;
    }

    /** The snapshot table of the Table API example, with a fixed load completion time. */
    private static Table snapshotByName(TableEnvironment env, Table rates) {
        return env.fromCall(
                "SNAPSHOT",
                rates.asArgument("input"),
                descriptor("update_time").asArgument("on_time"),
                lit(LOAD_COMPLETED).asArgument("load_completed_time"));
    }

    private static BiFunction<Table, Table, Table> join(String join) {
        return join.equals("JOIN")
                ? (probe, snapshot) -> probe.join(snapshot, $("currency").isEqual($("r_currency")))
                : (probe, snapshot) ->
                        probe.leftOuterJoin(snapshot, $("currency").isEqual($("r_currency")));
    }

    private static Table select(Table joined) {
        return joined.select($("order_id"), $("currency"), $("r_rate"));
    }

    /** The plan of the SQL statement the Table API queries of this test express. */
    private String sqlPlan(String join, String moreArguments) {
        return physicalPlan(
                env,
                "SELECT o.order_id, o.currency, r.r_rate FROM orders AS o "
                        + join
                        + " LATERAL SNAPSHOT(input => TABLE rates_r,"
                        + " on_time => DESCRIPTOR(update_time),"
                        + " load_completed_time => "
                        + SQL_LOAD_COMPLETED
                        + moreArguments
                        + ") AS r ON o.currency = r.r_currency");
    }

    private static String joinNode(String join) {
        return "LateralSnapshotJoin(joinType=["
                + (join.equals("JOIN") ? "InnerJoin" : "LeftOuterJoin")
                + "]";
    }
}
