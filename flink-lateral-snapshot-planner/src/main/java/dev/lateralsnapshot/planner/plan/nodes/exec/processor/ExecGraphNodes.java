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

import org.apache.flink.table.planner.plan.nodes.exec.ExecEdge;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeGraph;
import org.apache.flink.table.planner.plan.nodes.exec.visitor.AbstractExecNodeExactlyOnceVisitor;
import org.apache.flink.table.planner.plan.nodes.exec.visitor.ExecNodeVisitor;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The nodes of an exec-node graph, each once, and how many nodes (or roots of the graph) consume
 * each: a node that sub-plan reuse shares between consumers must stay as it is for all of them.
 */
final class ExecGraphNodes {

    private final List<ExecNode<?>> nodes;
    private final Map<ExecNode<?>, Integer> consumers;

    private ExecGraphNodes(List<ExecNode<?>> nodes, Map<ExecNode<?>, Integer> consumers) {
        this.nodes = nodes;
        this.consumers = consumers;
    }

    static ExecGraphNodes of(ExecNodeGraph graph) {
        List<ExecNode<?>> nodes = new ArrayList<>();
        ExecNodeVisitor collector =
                new AbstractExecNodeExactlyOnceVisitor() {
                    @Override
                    protected void visitNode(ExecNode<?> node) {
                        nodes.add(node);
                        visitInputs(node);
                    }
                };
        graph.getRootNodes().forEach(root -> root.accept(collector));

        Map<ExecNode<?>, Integer> consumers = new IdentityHashMap<>();
        graph.getRootNodes().forEach(root -> consumers.merge(root, 1, Integer::sum));
        for (ExecNode<?> node : nodes) {
            for (ExecEdge edge : node.getInputEdges()) {
                consumers.merge(edge.getSource(), 1, Integer::sum);
            }
        }
        return new ExecGraphNodes(nodes, consumers);
    }

    /** Every node of the graph, once. */
    List<ExecNode<?>> nodes() {
        return nodes;
    }

    /** Whether exactly one node, or one root of the graph, consumes the node. */
    boolean hasOneConsumer(ExecNode<?> node) {
        return consumers.getOrDefault(node, 0) == 1;
    }
}
