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

import dev.lateralsnapshot.planner.internal.ExecCalcs;
import dev.lateralsnapshot.planner.internal.ExecNodeCompilation;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoin;

import org.apache.flink.table.planner.plan.nodes.exec.ExecEdge;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeGraph;
import org.apache.flink.table.planner.plan.nodes.exec.processor.ExecNodeGraphProcessor;
import org.apache.flink.table.planner.plan.nodes.exec.processor.ProcessorContext;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecCalc;
import org.apache.flink.table.types.logical.RowType;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Fuses the {@code Calc} that projects (and filters) the rows of a LATERAL SNAPSHOT join into the
 * join: the join's operator then runs the projection on each joined row it emits. Chained to the
 * join as an operator of its own, the Calc gets a copy of every joined row, which with Flink's
 * default of no object reuse is a field-by-field copy of a row of both sides
 * (docs/benchmarks-notes.md, "Copies around the operator"); fused, the row that leaves the join is
 * the projected binary row.
 *
 * <p>It runs on the exec-node graph, after sub-plan reuse has merged the joins of statements that
 * read one join: a join that two nodes consume keeps its own output and its Calcs, so that the
 * build side is still read and kept once. The fused join keeps the id, type and version of the
 * join, so its operator has the same uid and state as without fusion and restores the same
 * savepoints.
 *
 * <p>A graph compiled into a plan ({@code COMPILE PLAN}, {@code compilePlanSql}) is left as it is:
 * a plan keeps the join and the Calc as two nodes, as Flink 2.4 writes and reads them, so that it
 * moves to Flink 2.4 unchanged (docs/moving-to-flink-2.4.md); a job run from a plan runs them
 * chained, as Flink's own planner would.
 */
public final class LateralSnapshotJoinCalcFusion implements ExecNodeGraphProcessor {

    @Override
    public ExecNodeGraph process(ExecNodeGraph graph, ProcessorContext context) {
        ExecGraphNodes graphNodes = ExecGraphNodes.of(graph);
        List<ExecNode<?>> nodes = graphNodes.nodes();
        Map<ExecNode<?>, ExecNode<?>> fusedCalcs = new IdentityHashMap<>();
        for (ExecNode<?> node : nodes) {
            if (node instanceof StreamExecCalc && node.getInputEdges().size() == 1) {
                ExecNode<?> input = node.getInputEdges().get(0).getSource();
                if (input instanceof StreamExecLateralSnapshotJoin
                        && !ExecNodeCompilation.isCompiled((StreamExecLateralSnapshotJoin) input)
                        && !((StreamExecLateralSnapshotJoin) input).hasFusedCalc()
                        && graphNodes.hasOneConsumer(input)) {
                    fusedCalcs.put(
                            node,
                            fuse((StreamExecCalc) node, (StreamExecLateralSnapshotJoin) input));
                }
            }
        }
        if (fusedCalcs.isEmpty()) {
            return graph;
        }

        for (ExecNode<?> node : nodes) {
            List<ExecEdge> edges = node.getInputEdges();
            for (int i = 0; i < edges.size(); i++) {
                ExecNode<?> fused = fusedCalcs.get(edges.get(i).getSource());
                if (fused != null) {
                    node.replaceInputEdge(
                            i, ExecEdge.builder().from(edges.get(i)).source(fused).build());
                }
            }
        }
        List<ExecNode<?>> roots =
                graph.getRootNodes().stream()
                        .map(root -> fusedCalcs.getOrDefault(root, root))
                        .collect(Collectors.toList());
        return new ExecNodeGraph(graph.getFlinkVersion(), roots);
    }

    private static ExecNode<?> fuse(StreamExecCalc calc, StreamExecLateralSnapshotJoin join) {
        StreamExecLateralSnapshotJoin fused =
                join.fuseCalc(
                        ExecCalcs.projection(calc),
                        ExecCalcs.condition(calc),
                        (RowType) calc.getOutputType(),
                        calc.getDescription());
        fused.setInputEdges(
                join.getInputEdges().stream()
                        .map(edge -> ExecEdge.builder().from(edge).target(fused).build())
                        .collect(Collectors.toList()));
        return fused;
    }
}
