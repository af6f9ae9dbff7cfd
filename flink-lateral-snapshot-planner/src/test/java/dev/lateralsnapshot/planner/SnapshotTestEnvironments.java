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
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoin;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.operations.CollectModifyOperation;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecEdge;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeGraph;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;

import org.apache.calcite.rel.RelNode;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

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

    private SnapshotTestEnvironments() {}

    /** A streaming environment in UTC with the example tables, installed. */
    public static TableEnvironment streaming(Path buildDirectory) {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.getConfig().set("table.local-time-zone", "UTC");
        LateralSnapshot.install(env);
        createTables(env, buildDirectory);
        return env;
    }

    /** A batch environment in UTC with the tables of the batch example, installed. */
    public static TableEnvironment batch(Path ordersDirectory, Path ratesDirectory) {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.getConfig().set("table.local-time-zone", "UTC");
        LateralSnapshot.install(env);
        env.executeSql(
                "CREATE TABLE orders_b (order_id BIGINT, currency STRING) WITH ("
                        + "'connector' = 'filesystem', 'path' = '"
                        + ordersDirectory.toUri()
                        + "', 'format' = 'csv')");
        env.executeSql(
                "CREATE TABLE rates_b (currency STRING, rate DOUBLE) WITH ("
                        + "'connector' = 'filesystem', 'path' = '"
                        + ratesDirectory.toUri()
                        + "', 'format' = 'csv')");
        return env;
    }

    /** The tables and views of sections 0 and 4, and a primary-key variant of {@code rates}. */
    public static void createTables(TableEnvironment env, Path buildDirectory) {
        String build = buildDirectory.toUri().toString();
        env.executeSql(
                "CREATE TABLE rates (currency STRING, rate DOUBLE, update_time TIMESTAMP(3),"
                        + " WATERMARK FOR update_time AS update_time) WITH ("
                        + "'connector' = 'filesystem', 'path' = '"
                        + build
                        + "', 'format' = 'debezium-json', 'source.monitor-interval' = '2s')");
        env.executeSql(
                "CREATE TABLE rates_pk (currency STRING, rate DOUBLE, update_time TIMESTAMP(3),"
                        + " WATERMARK FOR update_time AS update_time,"
                        + " PRIMARY KEY (currency) NOT ENFORCED) WITH ("
                        + "'connector' = 'filesystem', 'path' = '"
                        + build
                        + "', 'format' = 'debezium-json', 'source.monitor-interval' = '2s')");
        env.executeSql(
                "CREATE TABLE rates_nowm (currency STRING, rate DOUBLE, update_time TIMESTAMP(3))"
                        + " WITH ('connector' = 'filesystem', 'path' = '"
                        + build
                        + "', 'format' = 'debezium-json', 'source.monitor-interval' = '2s')");
        env.executeSql(
                "CREATE TABLE orders (order_id BIGINT,"
                        + " currency AS CASE order_id % 3 WHEN 0 THEN 'A' WHEN 1 THEN 'B'"
                        + " ELSE 'C' END,"
                        + " ts AS LOCALTIMESTAMP,"
                        + " WATERMARK FOR ts AS ts - INTERVAL '1' SECOND"
                        + ") WITH ('connector' = 'datagen', 'rows-per-second' = '1',"
                        + " 'fields.order_id.kind' = 'sequence', 'fields.order_id.start' = '1',"
                        + " 'fields.order_id.end' = '100000')");
        env.executeSql(
                "CREATE TABLE out_print (order_id BIGINT, currency STRING, rate DOUBLE)"
                        + " WITH ('connector' = 'blackhole')");
        env.executeSql(
                "CREATE VIEW rates_rand AS"
                        + " SELECT currency, rate, RAND() AS r, update_time FROM rates");
        env.executeSql(
                "CREATE VIEW probe_agg AS SELECT currency, COUNT(*) AS c FROM orders"
                        + " GROUP BY currency");
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
        PlannerBase planner = (PlannerBase) ((TableEnvironmentImpl) env).getPlanner();
        RelNode rel =
                planner.translateToRel(
                        new CollectModifyOperation(env.sqlQuery(query).getQueryOperation()));
        return planner.optimize(JavaScalaConversionUtil.toScala(List.of(rel))).head();
    }

    /** The LATERAL SNAPSHOT exec nodes of a query, as the planner translates it to a job. */
    public static List<StreamExecLateralSnapshotJoin> execNodes(
            TableEnvironment env, String query) {
        PlannerBase planner = (PlannerBase) ((TableEnvironmentImpl) env).getPlanner();
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
