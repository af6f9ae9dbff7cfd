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

import org.apache.flink.table.delegation.InternalPlan;
import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.ExecNodeGraphInternalPlan;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeGraph;
import org.apache.flink.table.planner.plan.nodes.exec.processor.ExecNodeGraphProcessor;
import org.apache.flink.table.planner.plan.nodes.exec.processor.ProcessorContext;

import java.util.List;

/**
 * Exec-graph processors for compiled plans. Flink applies a planner's processors when it plans a
 * statement, and not when it translates a plan ({@code PlannerBase#translatePlan} translates the
 * {@code ExecNodeGraph} of its {@code ExecNodeGraphInternalPlan} as it is); a processor that
 * changes the nodes of a graph in place can be applied to that graph just before.
 */
public final class LoadedPlans {

    private LoadedPlans() {}

    /**
     * Applies the processors to the graph of the plan, which the planner translates next. A plan or
     * planner of another kind than Flink's is left as it is.
     *
     * @throws IllegalStateException for a processor that returns another graph than it was given
     */
    public static void process(
            InternalPlan plan, Planner planner, List<ExecNodeGraphProcessor> processors) {
        if (!(plan instanceof ExecNodeGraphInternalPlan) || !(planner instanceof PlannerBase)) {
            return;
        }
        ExecNodeGraph graph = ((ExecNodeGraphInternalPlan) plan).getExecNodeGraph();
        ProcessorContext context = new ProcessorContext((PlannerBase) planner);
        for (ExecNodeGraphProcessor processor : processors) {
            if (processor.process(graph, context) != graph) {
                throw new IllegalStateException(
                        processor.getClass().getName()
                                + " returned a new graph, which a compiled plan cannot take.");
            }
        }
    }
}
