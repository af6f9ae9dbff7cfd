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

package dev.lateralsnapshot.planner;

import dev.lateralsnapshot.LateralSnapshot;
import dev.lateralsnapshot.planner.delegation.LateralSnapshotPlannerFactory;
import dev.lateralsnapshot.planner.internal.TableEnvironmentPlanners;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoin;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.PlannerFactoryEnvironments;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;
import dev.lateralsnapshot.testutils.environments.TableEnvironments;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.operations.CollectModifyOperation;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecEdge;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeGraph;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;

import org.apache.calcite.rel.RelNode;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ENRICHED_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ONE_ORDER_PER_SECOND;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.PROBE_AGG_QUERY;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS_WITHOUT_WATERMARK;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_PK_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_RAND_QUERY;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Table environments with LATERAL SNAPSHOT installed and the tables of the examples of {@code
 * docs/lateral-snapshot-join.md} ("Syntax"), which are those of Flink 2.4's release-testing plan
 * ({@code ReleaseTestingPlanIT} of the end-to-end suite runs the whole plan), plus helpers to read
 * plans. Nothing here runs a job.
 */
public final class SnapshotTestEnvironments {

    /** The INNER join of the plan's first section, without the idle timeout. */
    public static final String SECTION_1_QUERY =
            "SELECT o.order_id, o.currency, r.rate FROM orders AS o"
                    + " JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                    + " on_time => DESCRIPTOR(update_time)) AS r"
                    + " ON o.currency = r.currency";

    /**
     * The columns of {@code rates_r}, {@code rates} for the Table API, which joins tables whose
     * columns have names other than those of {@code orders}.
     */
    public static final String TABLE_API_RATES_COLUMNS =
            "r_currency STRING, r_rate DOUBLE, update_time TIMESTAMP(3),"
                    + " WATERMARK FOR update_time AS update_time";

    /** A fixed load completion time, so that plans do not depend on the clock. */
    public static final Instant LOAD_COMPLETED = Instant.parse("2026-01-02T00:00:00Z");

    /** {@link #LOAD_COMPLETED} as the SQL argument. */
    public static final String SQL_LOAD_COMPLETED =
            "CAST(TIMESTAMP '2026-01-02 00:00:00' AS TIMESTAMP_LTZ(3))";

    private SnapshotTestEnvironments() {}

    /** A streaming environment in UTC with the example tables, installed. */
    public static TableEnvironment streaming(Path buildDirectory) {
        TableEnvironment env = TableEnvironments.streaming();
        LateralSnapshot.install(env);
        createTables(env, buildDirectory);
        return env;
    }

    /**
     * A streaming environment in UTC with the example tables whose planner the drop-in jar's
     * planner factory created: the join is installed, and its exec-graph processor fuses the
     * projection after a join into it.
     */
    public static TableEnvironment streamingDropIn(Path buildDirectory) {
        TableEnvironment env =
                PlannerFactoryEnvironments.create(
                        EnvironmentSettings.inStreamingMode(),
                        LateralSnapshotPlannerFactory.class.getName());
        env.getConfig().set("table.local-time-zone", "UTC");
        createTables(env, buildDirectory);
        return env;
    }

    /** A batch environment in UTC with the tables of the batch example, installed. */
    public static TableEnvironment batch(Path ordersDirectory, Path ratesDirectory) {
        TableEnvironment env = TableEnvironments.batch();
        LateralSnapshot.install(env);
        env.executeSql(
                createTable(
                        "orders_b",
                        BATCH_ORDERS_COLUMNS,
                        Directories.filesystem(ordersDirectory, "csv")));
        env.executeSql(
                createTable(
                        "rates_b",
                        BATCH_RATES_COLUMNS,
                        Directories.filesystem(ratesDirectory, "csv")));
        return env;
    }

    /** A fresh environment of {@link #streaming} for each test that takes one as a parameter. */
    public static TableEnvironmentExtension streamingPerTest() {
        return new TableEnvironmentExtension(SnapshotTestEnvironments::streaming);
    }

    /**
     * The tables and views of sections 0 and 4, a primary-key variant of {@code rates}, and {@code
     * rates_r}.
     */
    public static void createTables(TableEnvironment env, Path buildDirectory) {
        String build =
                Directories.filesystem(buildDirectory, "debezium-json")
                        + ", 'source.monitor-interval' = '2s'";
        env.executeSql(createTable("rates", RATES_COLUMNS, build));
        env.executeSql(createTable("rates_pk", RATES_PK_COLUMNS, build));
        env.executeSql(createTable("rates_nowm", RATES_COLUMNS_WITHOUT_WATERMARK, build));
        env.executeSql(createTable("orders", ORDERS_COLUMNS, ONE_ORDER_PER_SECOND));
        env.executeSql(createTable("out_print", ENRICHED_COLUMNS, "'connector' = 'blackhole'"));
        env.executeSql("CREATE VIEW rates_rand AS " + RATES_RAND_QUERY);
        env.executeSql("CREATE VIEW probe_agg AS " + PROBE_AGG_QUERY);
        env.executeSql(
                createTable(
                        "rates_r",
                        TABLE_API_RATES_COLUMNS,
                        Directories.filesystem(buildDirectory, "debezium-json")));
    }

    /** Flink's planner of the environment, also where the library's planner wraps it. */
    public static PlannerBase flinkPlanner(TableEnvironment env) {
        return (PlannerBase) TableEnvironmentPlanners.flinkPlannerOf(env);
    }

    /** The optimized physical plan of a query, without the abstract syntax tree. */
    public static String physicalPlan(
            TableEnvironment env, String query, ExplainDetail... details) {
        return physicalPlan(env.explainSql(query, details));
    }

    /** The optimized physical plan of a Table API query, without the abstract syntax tree. */
    public static String physicalPlan(Table table, ExplainDetail... details) {
        return physicalPlan(table.explain(details));
    }

    private static String physicalPlan(String explained) {
        int start = explained.indexOf("== Optimized Physical Plan");
        int end = explained.indexOf("== Optimized Execution Plan");
        assertThat(start).as("physical plan section of%n%s", explained).isNotNegative();
        return explained.substring(start, end).trim();
    }

    /** The lines of the physical plan that contain the given text. */
    public static List<String> planLines(String plan, String text) {
        List<String> lines = new ArrayList<>();
        for (String line : plan.split("\n")) {
            if (line.contains(text)) {
                lines.add(line.trim());
            }
        }
        return lines;
    }

    /** The optimized physical plan of a query, as the planner hands it to the translation. */
    public static RelNode optimizedPlan(TableEnvironment env, String query) {
        PlannerBase planner = flinkPlanner(env);
        RelNode rel =
                planner.translateToRel(
                        new CollectModifyOperation(env.sqlQuery(query).getQueryOperation()));
        return planner.optimize(JavaScalaConversionUtil.toScala(List.of(rel))).head();
    }

    /** The LATERAL SNAPSHOT exec nodes of a query, as the planner translates it to a job. */
    public static List<StreamExecLateralSnapshotJoin> execNodes(
            TableEnvironment env, String query) {
        PlannerBase planner = flinkPlanner(env);
        ExecNodeGraph graph =
                planner.translateToExecNodeGraph(
                        JavaScalaConversionUtil.toScala(List.of(optimizedPlan(env, query))), false);
        List<StreamExecLateralSnapshotJoin> joins = new ArrayList<>();
        Deque<ExecNode<?>> pending = new ArrayDeque<>(graph.getRootNodes());
        while (!pending.isEmpty()) {
            ExecNode<?> node = pending.pop();
            if (node instanceof StreamExecLateralSnapshotJoin) {
                joins.add((StreamExecLateralSnapshotJoin) node);
            }
            for (ExecEdge edge : node.getInputEdges()) {
                pending.push(edge.getSource());
            }
        }
        return joins;
    }
}
