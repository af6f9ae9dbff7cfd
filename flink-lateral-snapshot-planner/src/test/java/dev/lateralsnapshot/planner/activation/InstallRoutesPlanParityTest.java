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

package dev.lateralsnapshot.planner.activation;

import dev.lateralsnapshot.LateralSnapshot;
import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.planner.delegation.LateralSnapshotPlannerFactory;
import dev.lateralsnapshot.testutils.environments.PlannerFactoryEnvironments;

import org.apache.flink.runtime.jobgraph.JobEdge;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SQL_LOAD_COMPLETED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same statements get the same job whether the join was installed with {@code
 * LateralSnapshot.install(env)} in an environment of Flink's own planner factory or came with the
 * drop-in jar's planner factory: the same explained plans, with the projection after a join fused
 * into it where the planner fuses it (see {@code LateralSnapshotJoinCalcFusionTest}), and the same
 * job graph, operator for operator, with the same parallelism, chaining and exchanges.
 */
class InstallRoutesPlanParityTest {

    private static final String SNAPSHOT =
            " JOIN LATERAL SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(update_time),"
                    + " load_completed_time => "
                    + SQL_LOAD_COMPLETED
                    + ") AS r ON o.currency = r.currency";

    private static final String SINKS =
            "CREATE TABLE amounts (order_id BIGINT, amount DOUBLE)"
                    + " WITH ('connector' = 'blackhole');"
                    + "CREATE TABLE rates_seen (order_id BIGINT, rate DOUBLE)"
                    + " WITH ('connector' = 'blackhole')";

    @TempDir Path tempDir;

    @Test
    void anInnerJoinWithAProjection() {
        assertSamePlanAndJob(
                Map.of(),
                List.of(
                        "INSERT INTO amounts SELECT o.order_id, o.order_id * r.rate"
                                + " FROM orders AS o"
                                + SNAPSHOT),
                true);
    }

    @Test
    void aLeftJoinWithAProjectionAndAFilter() {
        assertSamePlanAndJob(
                Map.of(),
                List.of(
                        "INSERT INTO amounts SELECT o.order_id, o.order_id * r.rate"
                                + " FROM orders AS o LEFT"
                                + SNAPSHOT
                                + " WHERE r.rate > 1 OR r.rate IS NULL"),
                true);
    }

    @Test
    void aJoinReadByTwoSinksOfOneStatementSet() {
        assertSamePlanAndJob(
                Map.of(),
                List.of(
                        "INSERT INTO amounts SELECT o.order_id, o.order_id * r.rate"
                                + " FROM orders AS o LEFT"
                                + SNAPSHOT,
                        "INSERT INTO rates_seen SELECT o.order_id, r.rate"
                                + " FROM orders AS o LEFT"
                                + SNAPSHOT),
                false);
    }

    @Test
    void aJoinWithABroadcastBuildSide() {
        assertSamePlanAndJob(
                // What SET 'table.exec.lateral-snapshot.build-distribution' = 'broadcast' sets in
                // the SQL Client; the Table API's executeSql does not take SET.
                Map.of("table.exec.lateral-snapshot.build-distribution", "broadcast"),
                List.of(
                        "INSERT INTO amounts SELECT o.order_id, o.order_id * r.rate"
                                + " FROM orders AS o"
                                + SNAPSHOT),
                true);
    }

    /**
     * Plans the inserts after the settings through both routes and compares what each explains
     * (with the stream graph of the job) and the job graph it runs; {@code fused} says whether the
     * projection must be part of the join.
     */
    private void assertSamePlanAndJob(
            Map<String, String> settings, List<String> inserts, boolean fused) {
        Planned installed = plan(installed(), settings, inserts);
        Planned dropIn = plan(dropIn(), settings, inserts);

        assertThat(installed.explained()).isEqualTo(dropIn.explained());
        assertThat(installed.jobGraph()).isEqualTo(dropIn.jobGraph());
        String executionPlan =
                installed
                        .explained()
                        .substring(installed.explained().indexOf("== Optimized Execution Plan =="));
        if (fused) {
            assertThat(executionPlan).contains(", calc=[select=[");
        } else {
            assertThat(executionPlan).contains("(reuse_id=[").doesNotContain("calc=[");
        }
    }

    private Planned plan(Route route, Map<String, String> settings, List<String> inserts) {
        route.tableEnv().getConfig().set("table.local-time-zone", "UTC");
        SnapshotTestEnvironments.createTables(route.tableEnv(), tempDir);
        for (String sink : SINKS.split(";")) {
            route.tableEnv().executeSql(sink);
        }
        settings.forEach(route.tableEnv().getConfig()::set);
        StreamStatementSet statements = route.tableEnv().createStatementSet();
        inserts.forEach(statements::addInsertSql);
        String explained = statements.explain(ExplainDetail.JSON_EXECUTION_PLAN);
        statements.attachAsDataStream();
        JobGraph jobGraph = route.streamEnv().getStreamGraph().getJobGraph();
        return new Planned(renumbered(explained), renumbered(describe(jobGraph)));
    }

    private static Route installed() {
        StreamExecutionEnvironment streamEnv = streamEnvironment();
        StreamTableEnvironment tableEnv = StreamTableEnvironment.create(streamEnv);
        LateralSnapshot.install(tableEnv);
        return new Route(streamEnv, tableEnv);
    }

    private static Route dropIn() {
        StreamExecutionEnvironment streamEnv = streamEnvironment();
        StreamTableEnvironment tableEnv =
                PlannerFactoryEnvironments.create(
                        LateralSnapshotPlannerFactory.class.getName(),
                        () -> StreamTableEnvironment.create(streamEnv));
        return new Route(streamEnv, tableEnv);
    }

    /** Parallelism 3: a keyed join, a broadcast join and the sources each show their own. */
    private static StreamExecutionEnvironment streamEnvironment() {
        StreamExecutionEnvironment streamEnv = StreamExecutionEnvironment.getExecutionEnvironment();
        streamEnv.setParallelism(3);
        return streamEnv;
    }

    /**
     * The vertices of the job graph from its sources on: the names of the operators chained into
     * each, its parallelism and number of operators, and the exchanges it reads.
     */
    private static String describe(JobGraph jobGraph) {
        List<JobVertex> vertices = jobGraph.getVerticesSortedTopologicallyFromSources();
        StringBuilder description = new StringBuilder();
        for (JobVertex vertex : vertices) {
            description
                    .append(vertices.indexOf(vertex))
                    .append(": ")
                    .append(vertex.getName())
                    .append(", parallelism ")
                    .append(vertex.getParallelism())
                    .append(", max parallelism ")
                    .append(vertex.getMaxParallelism())
                    .append(", operators ")
                    .append(vertex.getOperatorIDs().size())
                    .append('\n');
            for (JobEdge input : vertex.getInputs()) {
                description
                        .append("    <- ")
                        .append(vertices.indexOf(input.getSource().getProducer()))
                        .append(' ')
                        .append(input.getShipStrategyName())
                        .append(' ')
                        .append(input.getDistributionPattern())
                        .append('\n');
            }
        }
        return description.toString();
    }

    /**
     * The text with the ids of exec nodes ({@code Calc[7]}, {@code "[7]:Calc(...)"}) and stream
     * nodes ({@code "id" : 7}) numbered in the order they first appear: Flink counts both up across
     * every plan of the JVM, so two environments give the same node different ids. The numbers of
     * reused sub-plans ({@code reuse_id=[1]}) count per plan, and stay as they are.
     */
    private static String renumbered(String text) {
        String execNodes = renumbered(text, Pattern.compile("(?<=[\\w\"])\\[(\\d+)]"));
        return renumbered(execNodes, Pattern.compile("\"id\" : (\\d+)"));
    }

    private static String renumbered(String text, Pattern id) {
        Map<String, Integer> numbers = new HashMap<>();
        Matcher matcher = id.matcher(text);
        StringBuilder result = new StringBuilder();
        while (matcher.find()) {
            int number = numbers.computeIfAbsent(matcher.group(1), key -> numbers.size() + 1);
            String match = matcher.group();
            String replaced =
                    match.substring(0, matcher.start(1) - matcher.start())
                            + number
                            + match.substring(matcher.end(1) - matcher.start());
            matcher.appendReplacement(result, Matcher.quoteReplacement(replaced));
        }
        matcher.appendTail(result);
        return result.toString();
    }

    private record Route(StreamExecutionEnvironment streamEnv, StreamTableEnvironment tableEnv) {}

    private record Planned(String explained, String jobGraph) {}
}
