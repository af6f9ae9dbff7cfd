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

import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.delegation.PlannerFactory;
import org.apache.flink.table.planner.delegation.StreamPlanner;
import org.apache.flink.table.planner.plan.nodes.exec.processor.ExecNodeGraphProcessor;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;

import java.util.ArrayList;
import java.util.List;

import scala.collection.Seq;

/**
 * Flink's stream planner with more exec-graph processors. Flink applies a planner's processors to
 * the exec-node graph of every statement it explains, translates or compiles, after sub-plan reuse
 * has merged equal sub-plans ({@code PlannerBase#translateToExecNodeGraph}); a plan that is loaded
 * is translated as it was compiled, without them. Flink 2.3's stream planner has none of its own
 * and no way to add one but a subclass, which is built here with the arguments Flink's {@code
 * DefaultPlannerFactory} passes: from a planner factory's context, or from the context of the
 * planner an environment was built with ({@link PlannerFactoryContexts}), to take its place.
 */
public final class ProcessingStreamPlanners {

    private ProcessingStreamPlanners() {}

    /** A stream planner for the factory's context that applies the processors after Flink's. */
    public static StreamPlanner create(
            PlannerFactory.Context context, List<ExecNodeGraphProcessor> processors) {
        return new ProcessingStreamPlanner(context, List.copyOf(processors));
    }

    /**
     * Whether the planner is Flink's stream planner itself, whose place a planner of this class can
     * take: it is what Flink's factory creates in streaming mode. A planner of another class, a
     * subclass included, may do more than Flink's, which a planner of this class would not do.
     */
    public static boolean isFlinkStreamPlanner(Planner planner) {
        return planner.getClass() == StreamPlanner.class;
    }

    private static final class ProcessingStreamPlanner extends StreamPlanner {

        private final List<ExecNodeGraphProcessor> processors;

        ProcessingStreamPlanner(
                PlannerFactory.Context context, List<ExecNodeGraphProcessor> processors) {
            super(
                    context.getExecutor(),
                    context.getTableConfig(),
                    context.getModuleManager(),
                    context.getFunctionCatalog(),
                    context.getCatalogManager(),
                    context.getClassLoader());
            this.processors = processors;
        }

        @Override
        public Seq<ExecNodeGraphProcessor> getExecNodeGraphProcessors() {
            List<ExecNodeGraphProcessor> all =
                    new ArrayList<>(
                            JavaScalaConversionUtil.toJava(super.getExecNodeGraphProcessors()));
            all.addAll(processors);
            return JavaScalaConversionUtil.toScala(all);
        }
    }
}
