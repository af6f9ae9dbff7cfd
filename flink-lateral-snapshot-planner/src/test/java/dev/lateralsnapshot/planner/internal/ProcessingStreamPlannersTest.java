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

import dev.lateralsnapshot.testutils.environments.PlannerFactoryEnvironments;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.FunctionCatalog;
import org.apache.flink.table.delegation.Executor;
import org.apache.flink.table.delegation.InternalPlan;
import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.delegation.PlannerFactory;
import org.apache.flink.table.module.ModuleManager;
import org.apache.flink.table.operations.ModifyOperation;
import org.apache.flink.table.planner.delegation.StreamPlanner;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeGraph;
import org.apache.flink.table.planner.plan.nodes.exec.processor.ExecNodeGraphProcessor;
import org.apache.flink.table.planner.plan.nodes.exec.processor.ProcessorContext;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Guards for {@link ProcessingStreamPlanners}: Flink's stream planner can be built with the
 * arguments of its factory, and applies the processors of a subclass to every statement it
 * explains, translates or compiles, and not to a plan it loads; Flink's factory creates exactly
 * that class in streaming mode.
 */
class ProcessingStreamPlannersTest {

    /** How often {@link RecordingFactory}'s processor has run. */
    private static final AtomicInteger PROCESSED = new AtomicInteger();

    @Test
    void theStreamPlannerHasTheConstructorOfItsFactory() throws NoSuchMethodException {
        assertThat(
                        Modifier.isPublic(
                                StreamPlanner.class
                                        .getConstructor(
                                                Executor.class,
                                                TableConfig.class,
                                                ModuleManager.class,
                                                FunctionCatalog.class,
                                                CatalogManager.class,
                                                ClassLoader.class)
                                        .getModifiers()))
                .isTrue();
        assertThat(Modifier.isFinal(StreamPlanner.class.getModifiers())).isFalse();
    }

    @Test
    void theProcessorsAreAScalaSequenceTheSubclassOverrides() throws NoSuchMethodException {
        Method processors = StreamPlanner.class.getMethod("getExecNodeGraphProcessors");
        assertThat(processors.getReturnType()).isEqualTo(scala.collection.Seq.class);
        assertThat(Modifier.isFinal(processors.getModifiers())).isFalse();
    }

    @Test
    void flinksFactoryCreatesTheStreamPlannerInStreamingModeOnly() {
        Planner streaming =
                ((TableEnvironmentImpl)
                                TableEnvironment.create(EnvironmentSettings.inStreamingMode()))
                        .getPlanner();
        Planner batch =
                ((TableEnvironmentImpl) TableEnvironment.create(EnvironmentSettings.inBatchMode()))
                        .getPlanner();
        Planner processing =
                ((TableEnvironmentImpl)
                                PlannerFactoryEnvironments.create(
                                        EnvironmentSettings.inStreamingMode(),
                                        RecordingFactory.class.getName()))
                        .getPlanner();

        assertThat(streaming.getClass()).isEqualTo(StreamPlanner.class);
        assertThat(ProcessingStreamPlanners.isFlinkStreamPlanner(streaming)).isTrue();
        assertThat(ProcessingStreamPlanners.isFlinkStreamPlanner(batch)).isFalse();
        assertThat(ProcessingStreamPlanners.isFlinkStreamPlanner(processing)).isFalse();
    }

    @Test
    void theProcessorRunsForExplainTranslateAndCompileButNotForALoadedPlan() throws IOException {
        TableEnvironment env =
                PlannerFactoryEnvironments.create(
                        EnvironmentSettings.inStreamingMode(), RecordingFactory.class.getName());
        env.executeSql(
                "CREATE TABLE t (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1')");
        env.executeSql("CREATE TABLE s (x INT) WITH ('connector' = 'blackhole')");
        Planner planner = ((TableEnvironmentImpl) env).getPlanner();
        assertThat(planner).isInstanceOf(StreamPlanner.class);
        ModifyOperation insert =
                (ModifyOperation)
                        ((TableEnvironmentImpl) env)
                                .getParser()
                                .parse("INSERT INTO s SELECT x + 1 FROM t")
                                .get(0);

        PROCESSED.set(0);
        env.explainSql("INSERT INTO s SELECT x + 1 FROM t");
        assertThat(PROCESSED.getAndSet(0)).as("explain").isEqualTo(1);

        planner.translate(List.of(insert));
        assertThat(PROCESSED.getAndSet(0)).as("translate").isEqualTo(1);

        InternalPlan compiled = planner.compilePlan(List.of(insert));
        assertThat(PROCESSED.getAndSet(0)).as("compilePlan").isEqualTo(1);

        InternalPlan loaded =
                planner.loadPlan(PlanReference.fromJsonString(compiled.asJsonString()));
        planner.translatePlan(loaded);
        assertThat(PROCESSED.get()).as("loadPlan and translatePlan").isZero();
    }

    /** A planner factory whose stream planner counts the runs of its processor. */
    public static final class RecordingFactory implements PlannerFactory {

        @Override
        public String factoryIdentifier() {
            return PlannerFactory.DEFAULT_IDENTIFIER;
        }

        @Override
        public Set<ConfigOption<?>> requiredOptions() {
            return Set.of();
        }

        @Override
        public Set<ConfigOption<?>> optionalOptions() {
            return Set.of();
        }

        @Override
        public Planner create(Context context) {
            return ProcessingStreamPlanners.create(context, List.of(new Counting()));
        }
    }

    private static final class Counting implements ExecNodeGraphProcessor {
        @Override
        public ExecNodeGraph process(ExecNodeGraph graph, ProcessorContext context) {
            PROCESSED.incrementAndGet();
            return graph;
        }
    }
}
