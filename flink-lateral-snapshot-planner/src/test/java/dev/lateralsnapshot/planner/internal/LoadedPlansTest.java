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

package dev.lateralsnapshot.planner.internal;

import org.apache.flink.FlinkVersion;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.delegation.InternalPlan;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.ExecNodeGraphInternalPlan;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeGraph;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Guards for {@link LoadedPlans}: a loaded plan is Flink's {@code ExecNodeGraphInternalPlan}, whose
 * graph is the one the planner translates, so that a processor that changes it in place changes the
 * job.
 */
class LoadedPlansTest {

    @Test
    void theProcessorsSeeTheGraphThePlannerTranslates() {
        TableEnvironment env = environment();
        PlannerBase planner = (PlannerBase) ((TableEnvironmentImpl) env).getPlanner();
        InternalPlan plan = loaded(env, planner);
        List<ExecNodeGraph> seen = new ArrayList<>();

        LoadedPlans.process(
                plan,
                planner,
                List.of(
                        (graph, context) -> {
                            assertThat(context.getPlanner()).isSameAs(planner);
                            seen.add(graph);
                            return graph;
                        }));

        assertThat(plan).isInstanceOf(ExecNodeGraphInternalPlan.class);
        assertThat(seen)
                .as("a loaded plan no longer holds the graph that translatePlan translates")
                .containsExactly(((ExecNodeGraphInternalPlan) plan).getExecNodeGraph());
    }

    @Test
    void aProcessorThatReturnsAnotherGraphFails() {
        TableEnvironment env = environment();
        PlannerBase planner = (PlannerBase) ((TableEnvironmentImpl) env).getPlanner();
        InternalPlan plan = loaded(env, planner);

        assertThatThrownBy(
                        () ->
                                LoadedPlans.process(
                                        plan,
                                        planner,
                                        List.of(
                                                (graph, context) ->
                                                        new ExecNodeGraph(
                                                                graph.getFlinkVersion(),
                                                                graph.getRootNodes()))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("returned a new graph");
    }

    @Test
    void aPlanOfAnotherKindIsLeftAsItIs() {
        TableEnvironment env = environment();
        PlannerBase planner = (PlannerBase) ((TableEnvironmentImpl) env).getPlanner();
        List<ExecNodeGraph> seen = new ArrayList<>();

        LoadedPlans.process(
                new OtherPlan(),
                planner,
                List.of(
                        (graph, context) -> {
                            seen.add(graph);
                            return graph;
                        }));

        assertThat(seen).isEmpty();
    }

    private static InternalPlan loaded(TableEnvironment env, PlannerBase planner) {
        String json =
                env.compilePlanSql("INSERT INTO sink SELECT k + 1 FROM source").asJsonString();
        return planner.loadPlan(PlanReference.fromJsonString(json));
    }

    private static TableEnvironment environment() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql(createTable("source", "k BIGINT", "'connector' = 'datagen'"));
        env.executeSql(createTable("sink", "k BIGINT", "'connector' = 'blackhole'"));
        return env;
    }

    private static final class OtherPlan implements InternalPlan {

        @Override
        public String asJsonString() {
            return "{}";
        }

        @Override
        public byte[] asSmileBytes() {
            return new byte[0];
        }

        @Override
        public void writeToFile(File file, boolean ignoreIfExists, boolean failIfExists) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FlinkVersion getFlinkVersion() {
            return FlinkVersion.current();
        }

        @Override
        public List<String> getSinkIdentifiers() {
            return List.of();
        }
    }
}
