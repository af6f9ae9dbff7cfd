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

package dev.lateralsnapshot.planner.plan.nodes.exec.processor;

import dev.lateralsnapshot.LateralSnapshot;
import dev.lateralsnapshot.config.LateralSnapshotOptions;
import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.planner.delegation.LateralSnapshotPlannerFactory;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotBroadcastJoin;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoin;
import dev.lateralsnapshot.testutils.environments.PlannerFactoryEnvironments;
import dev.lateralsnapshot.testutils.environments.TableEnvironments;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecEdge;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeGraph;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeGraphGenerator;
import org.apache.flink.table.planner.plan.nodes.exec.processor.ProcessorContext;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecCalc;
import org.apache.flink.table.planner.plan.nodes.physical.FlinkPhysicalRel;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;

import org.apache.calcite.rel.RelNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SQL_LOAD_COMPLETED;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.execNodes;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.flinkPlanner;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.physicalPlan;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which Calcs {@link LateralSnapshotJoinCalcFusion} fuses into a LATERAL SNAPSHOT join, in the
 * planner that the drop-in jar's planner factory creates (and {@code LateralSnapshot.install(env)}
 * puts in an environment, see {@code InstallRoutesPlanParityTest}): the one Calc that consumes a
 * join, also with a filter, and no Calc of a join that two statements share through sub-plan reuse.
 */
class LateralSnapshotJoinCalcFusionTest {

    private static final String LEFT_JOIN =
            " FROM orders AS o LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                    + " on_time => DESCRIPTOR(update_time), load_completed_time => "
                    + SQL_LOAD_COMPLETED
                    + ") AS r ON o.currency = r.currency";

    private static final String PROJECTION_AND_FILTER =
            "SELECT o.order_id, o.order_id * r.rate AS amount" + LEFT_JOIN + " WHERE r.rate > 1";

    @TempDir Path tempDir;

    @Test
    void fusesTheProjectionAndFilterAfterTheJoin() {
        TableEnvironment env = SnapshotTestEnvironments.streamingDropIn(tempDir);

        String plan = executionPlan(env.explainSql(PROJECTION_AND_FILTER));

        assertThat(plan.split("\n")[0])
                .startsWith("LateralSnapshotJoin(joinType=[LeftOuterJoin]")
                .endsWith(
                        ", calc=[select=[order_id, (order_id * rate) AS amount],"
                                + " where=[(rate > 1)]])");
        assertThat(plan).doesNotContain("Calc(select=[order_id, (order_id * rate)");
        List<StreamExecLateralSnapshotJoin> joins = execNodes(env, PROJECTION_AND_FILTER);
        assertThat(joins).hasSize(1);
        assertThat(joins.get(0).hasFusedCalc()).isTrue();
        assertThat(joins.get(0).getOutputType().getChildren()).hasSize(2);
    }

    @Test
    void leavesThePhysicalPlanAsItIs() {
        TableEnvironment fusing = SnapshotTestEnvironments.streamingDropIn(tempDir);
        // Flink's own planner, with the join in its configuration only: no processor.
        TableEnvironment notFusing = TableEnvironments.streaming();
        LateralSnapshot.install(notFusing.getConfig());
        SnapshotTestEnvironments.createTables(notFusing, tempDir);

        assertThat(executionPlan(notFusing.explainSql(PROJECTION_AND_FILTER)))
                .contains("Calc(select=[order_id, (order_id * rate) AS amount]");
        assertThat(physicalPlan(fusing, PROJECTION_AND_FILTER))
                .isEqualTo(physicalPlan(notFusing, PROJECTION_AND_FILTER))
                .contains("Calc(select=[order_id, *(order_id, rate) AS amount]");
    }

    @Test
    void fusesIntoTheJoinWithABroadcastBuildSide() {
        TableEnvironment env = SnapshotTestEnvironments.streamingDropIn(tempDir);
        env.getConfig().set(LateralSnapshotOptions.BUILD_DISTRIBUTION.key(), "broadcast");

        List<StreamExecLateralSnapshotJoin> joins = execNodes(env, PROJECTION_AND_FILTER);

        assertThat(joins).hasSize(1);
        assertThat(joins.get(0)).isInstanceOf(StreamExecLateralSnapshotBroadcastJoin.class);
        assertThat(joins.get(0).hasFusedCalc()).isTrue();
        assertThat(executionPlan(env.explainSql(PROJECTION_AND_FILTER)).split("\n")[0])
                .contains(", calc=[select=[order_id, (order_id * rate) AS amount]");
    }

    @Test
    void keepsTheCalcsOfAJoinThatTwoStatementsShare() {
        TableEnvironment env = SnapshotTestEnvironments.streamingDropIn(tempDir);
        env.executeSql(
                "CREATE TABLE doubled (order_id BIGINT, x DOUBLE) WITH ('connector' = 'blackhole')");
        env.executeSql(
                "CREATE TABLE tripled (order_id BIGINT, x DOUBLE) WITH ('connector' = 'blackhole')");
        StatementSet statements = env.createStatementSet();
        statements.addInsertSql("INSERT INTO doubled SELECT o.order_id, r.rate * 2" + LEFT_JOIN);
        statements.addInsertSql("INSERT INTO tripled SELECT o.order_id, r.rate * 3" + LEFT_JOIN);

        String plan = executionPlan(statements.explain());

        assertThat(plan)
                .contains("(reuse_id=[1])")
                .contains("Calc(select=[order_id, (rate * 2) AS EXPR$1])")
                .contains("Calc(select=[order_id, (rate * 3) AS EXPR$1])")
                .doesNotContain("calc=[");
    }

    @Test
    void theFusedJoinKeepsTheIdAndUidOfTheJoin() {
        TableEnvironment env = SnapshotTestEnvironments.streaming(tempDir);
        // Uids for a statement too, not only for a compiled plan, whose graph is not fused.
        env.getConfig().set("table.exec.uid.generation", "ALWAYS");
        PlannerBase planner = flinkPlanner(env);
        ExecNodeGraph graph = unprocessedGraph(env, false);
        StreamExecCalc calc =
                (StreamExecCalc) graph.getRootNodes().get(0).getInputEdges().get(0).getSource();
        StreamExecLateralSnapshotJoin join =
                (StreamExecLateralSnapshotJoin) calc.getInputEdges().get(0).getSource();
        String joinUid = join.translateToPlan(planner).getUid();

        ExecNodeGraph fusedGraph =
                new LateralSnapshotJoinCalcFusion().process(graph, new ProcessorContext(planner));

        ExecNode<?> fused = fusedGraph.getRootNodes().get(0).getInputEdges().get(0).getSource();
        assertThat(fused).isInstanceOf(StreamExecLateralSnapshotJoin.class);
        assertThat(fused.getId()).isEqualTo(join.getId());
        assertThat(fused.getTypeAsString()).isEqualTo(join.getTypeAsString());
        assertThat(fused.getOutputType()).isEqualTo(calc.getOutputType());
        assertThat(fused.getInputEdges()).extracting(ExecEdge::getTarget).containsOnly(fused);
        assertThat(fused.getInputEdges())
                .extracting(ExecEdge::getSource)
                .containsExactlyElementsOf(
                        join.getInputEdges().stream().map(ExecEdge::getSource).toList());
        Transformation<?> fusedTransformation = fused.translateToPlan(planner);
        assertThat(joinUid).isNotNull();
        assertThat(fusedTransformation.getUid()).isEqualTo(joinUid);
    }

    @Test
    void leavesTheGraphOfACompiledPlanAlone() {
        TableEnvironment env = SnapshotTestEnvironments.streaming(tempDir);
        PlannerBase planner = flinkPlanner(env);
        ExecNodeGraph graph = unprocessedGraph(env, true);
        ExecNode<?> calc = graph.getRootNodes().get(0).getInputEdges().get(0).getSource();

        ExecNodeGraph processed =
                new LateralSnapshotJoinCalcFusion().process(graph, new ProcessorContext(planner));

        assertThat(processed.getRootNodes().get(0).getInputEdges().get(0).getSource())
                .isSameAs(calc)
                .isInstanceOf(StreamExecCalc.class);
    }

    @Test
    void leavesBatchPlansAlone() {
        TableEnvironment env =
                PlannerFactoryEnvironments.create(
                        EnvironmentSettings.inBatchMode(),
                        LateralSnapshotPlannerFactory.class.getName());
        env.executeSql(
                "CREATE TABLE orders_b (order_id BIGINT, currency STRING)"
                        + " WITH ('connector' = 'datagen', 'number-of-rows' = '3')");
        env.executeSql(
                "CREATE TABLE rates_b (currency STRING, rate DOUBLE)"
                        + " WITH ('connector' = 'datagen', 'number-of-rows' = '3')");

        String plan =
                executionPlan(
                        env.explainSql(
                                "SELECT o.order_id, o.order_id * r.rate AS amount FROM orders_b AS o"
                                        + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates_b) AS r"
                                        + " ON o.currency = r.currency WHERE r.rate > 1"));

        assertThat(plan).contains("Calc(select=[order_id, (order_id * rate) AS amount]");
        assertThat(JavaScalaConversionUtil.toJava(flinkPlanner(env).getExecNodeGraphProcessors()))
                .noneMatch(processor -> processor instanceof LateralSnapshotJoinCalcFusion);
    }

    /**
     * The exec-node graph of {@link #PROJECTION_AND_FILTER} as Flink generates it from the physical
     * plan, before the planner's processors.
     */
    private static ExecNodeGraph unprocessedGraph(TableEnvironment env, boolean compiled) {
        RelNode optimized = SnapshotTestEnvironments.optimizedPlan(env, PROJECTION_AND_FILTER);
        return new ExecNodeGraphGenerator()
                .generate(List.of((FlinkPhysicalRel) optimized), compiled);
    }

    private static String executionPlan(String explained) {
        String section = "== Optimized Execution Plan ==";
        int start = explained.lastIndexOf(section);
        assertThat(start).as("execution plan section of%n%s", explained).isNotNegative();
        return explained.substring(start + section.length()).trim();
    }
}
