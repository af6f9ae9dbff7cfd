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

package dev.lateralsnapshot.tests.runtime;

import dev.lateralsnapshot.LateralSnapshot;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.StateBackendKind;
import dev.lateralsnapshot.testutils.environments.TableEnvironments;

import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;

import static dev.lateralsnapshot.testutils.tables.RateChanges.delete;
import static dev.lateralsnapshot.testutils.tables.RateChanges.insert;
import static dev.lateralsnapshot.testutils.tables.RateChanges.update;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_PK_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.apache.flink.table.api.Expressions.$;
import static org.apache.flink.table.api.Expressions.call;
import static org.apache.flink.table.api.Expressions.descriptor;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs LATERAL SNAPSHOT joins on a MiniCluster at parallelism 2, with bounded inputs: the end of
 * the build input brings the final build watermark, which flips the join and applies every build
 * change, so each probe row meets the final build side and the result is deterministic. This proves
 * the exec node wires the operator up (key selectors, types, condition, on_time column); the
 * operator's timing is tested in the runtime module. The Table API forms must give the rows of the
 * SQL statement.
 */
class LateralSnapshotJoinITCase extends MiniClusterTestBase {

    /** The changes of section 3 of the release-testing plan, after the rows of section 1. */
    private static final List<String> BUILD_CHANGES =
            List.of(
                    insert("A", 1.0, "2026-01-01 10:00:00"),
                    insert("B", 2.0, "2026-01-01 10:00:00"),
                    update("A", 1.0, "2026-01-01 10:00:00", 1.5, "2026-02-01 10:00:00"),
                    delete("B", 2.0, "2026-01-01 10:00:00"),
                    insert("C", 3.0, "2026-02-01 10:00:00"));

    /** The result of the LEFT JOIN of section 8 of the release-testing plan, in its order. */
    private static final String[] BATCH_LEFT_JOIN_ROWS = {
        "+I[1, A, 1.0]",
        "+I[1, A, 1.5]",
        "+I[2, B, 2.0]",
        "+I[3, C, null]",
        "+I[4, A, 1.0]",
        "+I[4, A, 1.5]"
    };

    private TableEnvironment env;

    @BeforeEach
    void createTables() throws IOException {
        env = TableEnvironments.streaming();
        env.getConfig().set("parallelism.default", "2");
        LateralSnapshot.install(env);
        createTables(env, directory);
    }

    /**
     * The streaming tables of these tests, in the directory: {@code rates} and {@code rates_pk}
     * with the build changes, the views {@code rates_r} and {@code rates_pk_r} of them with the
     * column names the Table API needs, and {@code orders}.
     */
    static void createTables(TableEnvironment env, Path directory) throws IOException {
        Path build = Files.createDirectories(directory.resolve("build"));
        Path probe = Files.createDirectories(directory.resolve("probe"));
        Files.write(build.resolve("changes.json"), BUILD_CHANGES);
        Files.write(probe.resolve("orders.csv"), List.of("1,A", "2,B", "3,C", "4,A", "5,", "6,D"));
        String changes = Directories.filesystem(build, "debezium-json");
        env.executeSql(createTable("rates", RATES_COLUMNS, changes));
        env.executeSql(createTable("rates_pk", RATES_PK_COLUMNS, changes));
        // The Table API needs column names that differ from those of orders.
        env.executeSql(
                "CREATE VIEW rates_r AS"
                        + " SELECT currency AS r_currency, rate AS r_rate, update_time FROM rates");
        env.executeSql(
                "CREATE VIEW rates_pk_r AS SELECT currency AS r_currency, rate AS r_rate,"
                        + " update_time FROM rates_pk");
        // An empty currency is NULL, which must never match.
        env.executeSql(
                createTable(
                        "orders",
                        "order_id BIGINT, currency STRING",
                        Directories.filesystem(probe, "csv") + ", 'csv.null-literal' = ''"));
    }

    @Test
    void leftJoinAgainstAChangelogWithoutPrimaryKey() throws Exception {
        assertThat(
                        rows(
                                "SELECT o.order_id, o.currency, r.rate FROM orders AS o"
                                        + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                        + " on_time => DESCRIPTOR(update_time)) AS r"
                                        + " ON o.currency = r.currency"))
                .containsExactlyInAnyOrder(
                        "+I[1, A, 1.5]",
                        "+I[2, B, null]",
                        "+I[3, C, 3.0]",
                        "+I[4, A, 1.5]",
                        "+I[5, null, null]",
                        "+I[6, D, null]");
    }

    @Test
    void innerJoinAgainstAnUpsertChangelog() throws Exception {
        // One build row per key: the upsert +U of A replaces its row instead of adding one.
        assertThat(
                        rows(
                                "SELECT o.order_id, r.rate, r.update_time FROM orders AS o"
                                        + " JOIN LATERAL SNAPSHOT(input => TABLE rates_pk,"
                                        + " on_time => DESCRIPTOR(update_time)) AS r"
                                        + " ON o.currency = r.currency"))
                .containsExactlyInAnyOrder(
                        "+I[1, 1.5, 2026-02-01T10:00]",
                        "+I[3, 3.0, 2026-02-01T10:00]",
                        "+I[4, 1.5, 2026-02-01T10:00]");
    }

    @Test
    void nonEquiJoinRunsOnOneSubtask() throws Exception {
        assertThat(
                        rows(
                                "SELECT o.order_id, r.currency FROM orders AS o"
                                        + " CROSS JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                        + " on_time => DESCRIPTOR(update_time)) AS r"
                                        + " WHERE o.currency < r.currency AND o.order_id < 3"))
                .containsExactlyInAnyOrder("+I[1, C]", "+I[2, C]");
    }

    @Test
    void processingTimeInTheConditionIsMaterialized() throws Exception {
        env.executeSql(
                createTable(
                        "clicks",
                        "click_id BIGINT, proc AS PROCTIME()",
                        "'connector' = 'datagen', 'number-of-rows' = '3',"
                                + " 'fields.click_id.kind' = 'sequence', 'fields.click_id.start' = '1',"
                                + " 'fields.click_id.end' = '3'"));
        assertThat(
                        rows(
                                "SELECT c.click_id, r.currency FROM clicks AS c"
                                        + " JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                        + " on_time => DESCRIPTOR(update_time)) AS r"
                                        + " ON CAST(c.proc AS TIMESTAMP(3)) > r.update_time"
                                        + " AND r.currency = 'C'"))
                .containsExactlyInAnyOrder("+I[1, C]", "+I[2, C]", "+I[3, C]");
    }

    @Test
    void batchModeIsARegularJoin() throws Exception {
        useBatchEnvironment();
        assertThat(
                        rows(
                                "SELECT o.order_id, o.currency, r.rate FROM orders_b AS o LEFT JOIN"
                                        + " LATERAL SNAPSHOT(input => TABLE rates_b, state_ttl =>"
                                        + " INTERVAL '1' HOUR) AS r ON o.currency = r.currency ORDER BY"
                                        + " o.order_id, r.rate"))
                .containsExactly(BATCH_LEFT_JOIN_ROWS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"JOIN", "LEFT JOIN"})
    void tableApiGivesTheResultsOfSql(String join) throws Exception {
        Table orders = env.from("orders");
        Table rates = env.from("rates_r");
        BiFunction<Table, Table, Table> joinWith =
                (probe, snapshot) ->
                        (join.equals("JOIN")
                                        ? probe.join(
                                                snapshot, $("currency").isEqual($("r_currency")))
                                        : probe.leftOuterJoin(
                                                snapshot, $("currency").isEqual($("r_currency"))))
                                .select($("order_id"), $("currency"), $("r_rate"));

        List<String> sql =
                rows(
                        "SELECT o.order_id, o.currency, r.r_rate FROM orders AS o "
                                + join
                                + " LATERAL SNAPSHOT(input => TABLE rates_r,"
                                + " on_time => DESCRIPTOR(update_time)) AS r"
                                + " ON o.currency = r.r_currency");
        List<String> byName =
                rows(
                        joinWith.apply(
                                orders,
                                env.fromCall(
                                        "SNAPSHOT",
                                        rates.asArgument("input"),
                                        descriptor("update_time").asArgument("on_time"))));
        List<String> built =
                rows(
                        joinWith.apply(
                                orders,
                                LateralSnapshot.snapshot(rates).onTime("update_time").toTable()));

        assertThat(sql)
                .containsExactlyInAnyOrder(
                        join.equals("JOIN")
                                ? new String[] {"+I[1, A, 1.5]", "+I[3, C, 3.0]", "+I[4, A, 1.5]"}
                                : new String[] {
                                    "+I[1, A, 1.5]",
                                    "+I[2, B, null]",
                                    "+I[3, C, 3.0]",
                                    "+I[4, A, 1.5]",
                                    "+I[5, null, null]",
                                    "+I[6, D, null]"
                                });
        assertThat(byName).containsExactlyInAnyOrderElementsOf(sql);
        assertThat(built).containsExactlyInAnyOrderElementsOf(sql);
    }

    @Test
    void tableApiInBatchModeGivesTheResultsOfSql() throws Exception {
        useBatchEnvironment();
        env.executeSql(
                "CREATE VIEW rates_rb AS SELECT currency AS r_currency, rate AS r_rate"
                        + " FROM rates_b");

        List<String> sql =
                rows(
                        "SELECT o.order_id, o.currency, r.r_rate FROM orders_b AS o LEFT JOIN"
                                + " LATERAL SNAPSHOT(input => TABLE rates_rb,"
                                + " state_ttl => INTERVAL '1' HOUR) AS r"
                                + " ON o.currency = r.r_currency");
        List<String> built =
                rows(
                        env.from("orders_b")
                                .leftOuterJoin(
                                        LateralSnapshot.snapshot(env.from("rates_rb"))
                                                .stateTtl(Duration.ofHours(1))
                                                .toTable(),
                                        $("currency").isEqual($("r_currency")))
                                .select($("order_id"), $("currency"), $("r_rate")));

        assertThat(sql).containsExactlyInAnyOrder(BATCH_LEFT_JOIN_ROWS);
        assertThat(built).containsExactlyInAnyOrderElementsOf(sql);

        List<String> innerSql =
                rows(
                        "SELECT o.order_id, o.currency, r.r_rate FROM orders_b AS o JOIN"
                                + " LATERAL SNAPSHOT(input => TABLE rates_rb) AS r"
                                + " ON o.currency = r.r_currency");
        List<String> joinLateral =
                rows(
                        env.from("orders_b")
                                .joinLateral(
                                        call("SNAPSHOT", env.from("rates_rb").asArgument("input")),
                                        $("currency").isEqual($("r_currency")))
                                .select($("order_id"), $("currency"), $("r_rate")));
        assertThat(innerSql).isNotEmpty();
        assertThat(joinLateral).containsExactlyInAnyOrderElementsOf(innerSql);
    }

    /** A batch environment with the tables and rows of section 8 of the release-testing plan. */
    private void useBatchEnvironment() throws IOException {
        env = batchEnvironment(StateBackendKind.HEAP);
    }

    private List<String> rows(String query) throws Exception {
        return rows(env.sqlQuery(query));
    }
}
