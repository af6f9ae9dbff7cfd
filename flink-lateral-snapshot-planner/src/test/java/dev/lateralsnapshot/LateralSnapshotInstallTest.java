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
import dev.lateralsnapshot.planner.internal.TableEnvironmentPlanners;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoin;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoinLaterVersions;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.TableEnvironments;

import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.config.OptimizerConfigOptions;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.stats.CatalogTableStatistics;
import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.functions.TableFunction;
import org.apache.flink.table.planner.calcite.CalciteConfig;
import org.apache.flink.table.planner.plan.utils.ExecNodeMetadataUtil;
import org.apache.flink.table.planner.utils.TableConfigUtils;

import org.apache.calcite.sql.util.SqlOperatorTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Installing the library: it is idempotent, keeps reading the configuration in effect at each
 * statement, and changes no plan of a query that does not use {@code SNAPSHOT}.
 */
class LateralSnapshotInstallTest {

    /** Ordinary streaming queries over the tables of {@link #createStreamTables}. */
    private static final List<String> STREAMING_QUERIES =
            List.of(
                    "SELECT order_id, UPPER(currency) FROM orders WHERE order_id > 10",
                    "SELECT o.order_id, r.rate FROM orders AS o JOIN rates AS r"
                            + " ON o.currency = r.currency",
                    "SELECT o.order_id, r.rate FROM orders AS o LEFT JOIN rates_pk AS r"
                            + " ON o.currency = r.currency AND r.rate > 1",
                    "SELECT currency, COUNT(*), SUM(order_id) FROM orders GROUP BY currency",
                    "SELECT currency, COUNT(DISTINCT order_id) FILTER (WHERE order_id > 3)"
                            + " FROM orders GROUP BY currency",
                    "SELECT window_start, currency, COUNT(*) FROM TABLE(TUMBLE(TABLE orders,"
                            + " DESCRIPTOR(ts), INTERVAL '1' MINUTE))"
                            + " GROUP BY window_start, window_end, currency",
                    "SELECT window_start, COUNT(*) FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts),"
                            + " INTERVAL '1' MINUTE, INTERVAL '5' MINUTE))"
                            + " GROUP BY window_start, window_end",
                    "SELECT order_id, SUM(order_id) OVER (PARTITION BY currency ORDER BY ts"
                            + " ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM orders",
                    "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY"
                            + " order_id DESC) AS rn FROM orders) WHERE rn <= 3",
                    "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY"
                            + " ts ASC) AS rn FROM orders) WHERE rn = 1",
                    "SELECT a.order_id, b.order_id FROM orders AS a, orders AS b"
                            + " WHERE a.currency = b.currency"
                            + " AND a.ts BETWEEN b.ts - INTERVAL '1' MINUTE AND b.ts",
                    "SELECT o.order_id, r.rate FROM orders AS o"
                            + " JOIN rates_pk FOR SYSTEM_TIME AS OF o.ts AS r"
                            + " ON o.currency = r.currency",
                    "SELECT c.click_id, d.rate FROM clicks AS c"
                            + " JOIN dim FOR SYSTEM_TIME AS OF c.proc AS d"
                            + " ON c.currency = d.currency",
                    "SELECT o.order_id, s.part FROM orders AS o,"
                            + " LATERAL TABLE(split(o.currency)) AS s(part)",
                    "SELECT o.order_id, s.part FROM orders AS o"
                            + " LEFT JOIN LATERAL TABLE(split(o.currency)) AS s(part) ON TRUE",
                    "SELECT order_id FROM orders WHERE currency IN (SELECT currency FROM rates)",
                    "SELECT order_id FROM orders AS o WHERE EXISTS"
                            + " (SELECT 1 FROM rates_pk AS r WHERE r.currency = o.currency)",
                    "SELECT currency FROM orders UNION ALL SELECT currency FROM rates",
                    "SELECT o.order_id, t.x FROM orders AS o CROSS JOIN UNNEST(ARRAY[1, 2]) AS"
                            + " t(x)",
                    "SELECT * FROM TABLE(SESSION(TABLE orders PARTITION BY currency,"
                            + " DESCRIPTOR(ts), INTERVAL '1' MINUTE))");

    /** Ordinary batch queries over the tables of {@link SnapshotTestEnvironments#batch}. */
    private static final List<String> BATCH_QUERIES =
            List.of(
                    "SELECT o.order_id, r.rate FROM orders_b AS o JOIN rates_b AS r"
                            + " ON o.currency = r.currency",
                    "SELECT o.order_id, r.rate FROM orders_b AS o LEFT JOIN rates_b AS r"
                            + " ON o.currency = r.currency ORDER BY o.order_id, r.rate",
                    "SELECT currency, AVG(rate) FROM rates_b GROUP BY currency",
                    "SELECT o.order_id, s.part FROM orders_b AS o,"
                            + " LATERAL TABLE(split(o.currency)) AS s(part)",
                    "SELECT order_id FROM orders_b WHERE currency NOT IN"
                            + " (SELECT currency FROM rates_b)");

    @TempDir Path directory;

    @Test
    void installIsIdempotent() {
        TableEnvironment env = TableEnvironments.streaming();
        assertThat(LateralSnapshot.isInstalled(env.getConfig())).isFalse();
        LateralSnapshot.install(env);
        CalciteConfig installed = TableConfigUtils.getCalciteConfig(env.getConfig());
        Planner planner = TableEnvironmentPlanners.of(env);
        LateralSnapshot.install(env);
        LateralSnapshot.install(env.getConfig());
        assertThat(LateralSnapshot.isInstalled(env.getConfig())).isTrue();
        assertThat(TableConfigUtils.getCalciteConfig(env.getConfig())).isSameAs(installed);
        assertThat(TableEnvironmentPlanners.of(env)).isSameAs(planner);
    }

    @Test
    void installListsTheJoinForCompiledPlans() {
        LateralSnapshot.install(TableConfig.getDefault());

        assertThat(ExecNodeMetadataUtil.retrieveExecNode(StreamExecLateralSnapshotJoin.NAME, 1))
                .isEqualTo(StreamExecLateralSnapshotJoin.class);
        assertThat(ExecNodeMetadataUtil.retrieveExecNode(StreamExecLateralSnapshotJoin.NAME, 2))
                .isEqualTo(StreamExecLateralSnapshotJoinLaterVersions.class);
    }

    @Test
    void installKeepsOtherPlannerSettings() {
        TableEnvironment env = TableEnvironments.streaming();
        env.getConfig()
                .setPlannerConfig(
                        CalciteConfig.createBuilder()
                                .addSqlOperatorTable(SqlOperatorTables.of())
                                .build());
        LateralSnapshot.install(env);
        CalciteConfig installed = TableConfigUtils.getCalciteConfig(env.getConfig());
        assertThat(installed.getSqlOperatorTable().isDefined()).isTrue();
        assertThat(installed.getSqlParserConfig().isDefined()).isTrue();
    }

    @Test
    void streamingPlansWithoutSnapshotAreUnchanged() {
        TableEnvironment env = TableEnvironments.streaming();
        createStreamTables(env);
        assertPlansUnchanged(env, STREAMING_QUERIES);
    }

    @Test
    void batchPlansWithoutSnapshotAreUnchanged() {
        TableEnvironment env = TableEnvironments.batch();
        createBatchTables(env);
        assertPlansUnchanged(env, BATCH_QUERIES);
    }

    @Test
    void settingsChangedAfterInstallStillApply() throws Exception {
        String query =
                "SELECT * FROM big AS b JOIN medium AS m ON b.k = m.k"
                        + " JOIN small AS s ON m.k = s.k";
        Function<Boolean, TableEnvironment> environment =
                install -> {
                    TableEnvironment env = TableEnvironments.batch();
                    if (install) {
                        LateralSnapshot.install(env);
                    }
                    createStatisticsTables(env);
                    return env;
                };
        TableEnvironment plain = environment.apply(false);
        String withoutReorder = plain.explainSql(query);
        plain.getConfig().set(OptimizerConfigOptions.TABLE_OPTIMIZER_JOIN_REORDER_ENABLED, true);
        String withReorder = plain.explainSql(query);
        assertThat(withReorder)
                .as("the query must be sensitive to join reordering")
                .isNotEqualTo(withoutReorder);

        TableEnvironment installed = environment.apply(true);
        assertThat(installed.explainSql(query)).isEqualTo(withoutReorder);
        installed
                .getConfig()
                .set(OptimizerConfigOptions.TABLE_OPTIMIZER_JOIN_REORDER_ENABLED, true);
        assertThat(installed.explainSql(query)).isEqualTo(withReorder);
    }

    // ---- helpers ----

    private static void assertPlansUnchanged(TableEnvironment env, List<String> queries) {
        String[] before = queries.stream().map(q -> explain(env, q)).toArray(String[]::new);
        LateralSnapshot.install(env);
        for (int i = 0; i < queries.size(); i++) {
            assertThat(explain(env, queries.get(i)))
                    .as("plan of %s", queries.get(i))
                    .isEqualTo(before[i]);
        }
    }

    /** The plan; correlation variables are numbered per statement, so their numbers go. */
    private static String explain(TableEnvironment env, String query) {
        return env.explainSql(query).replaceAll("\\$cor\\d+", "\\$cor");
    }

    private void createStreamTables(TableEnvironment env) {
        SnapshotTestEnvironments.createTables(env, directory);
        env.createTemporarySystemFunction("split", Split.class);
        env.executeSql(
                createTable(
                        "clicks",
                        "click_id BIGINT, currency STRING, proc AS PROCTIME()",
                        "'connector' = 'datagen'"));
        env.executeSql(
                createTable("dim", "currency STRING, rate DOUBLE", "'connector' = 'values'"));
    }

    private void createBatchTables(TableEnvironment env) {
        env.createTemporarySystemFunction("split", Split.class);
        String csv = Directories.filesystem(directory, "csv");
        env.executeSql(createTable("orders_b", BATCH_ORDERS_COLUMNS, csv));
        env.executeSql(createTable("rates_b", BATCH_RATES_COLUMNS, csv));
    }

    private static void createStatisticsTables(TableEnvironment env) {
        Catalog catalog = env.getCatalog(env.getCurrentCatalog()).orElseThrow();
        String database = env.getCurrentDatabase();
        long rows = 10;
        for (String table : List.of("small", "medium", "big")) {
            env.executeSql(
                    createTable(
                            table,
                            "k BIGINT, v STRING",
                            "'connector' = 'values', 'bounded' = 'true'"));
            try {
                catalog.alterTableStatistics(
                        new ObjectPath(database, table),
                        new CatalogTableStatistics(rows, 1, 100, 1000),
                        false);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            rows *= 10_000;
        }
    }

    /** Splits a string into its characters. */
    public static class Split extends TableFunction<String> {
        public void eval(String text) {
            for (char c : text.toCharArray()) {
                collect(String.valueOf(c));
            }
        }
    }
}
