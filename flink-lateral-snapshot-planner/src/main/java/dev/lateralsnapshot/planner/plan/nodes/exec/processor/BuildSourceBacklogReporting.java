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

import dev.lateralsnapshot.planner.connector.source.BacklogReportingScanSource;
import dev.lateralsnapshot.planner.internal.TableSourceScans;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoin;

import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeGraph;
import org.apache.flink.table.planner.plan.nodes.exec.processor.ExecNodeGraphProcessor;
import org.apache.flink.table.planner.plan.nodes.exec.processor.ProcessorContext;

import java.util.Optional;

/**
 * Makes the source of the build input of a LATERAL SNAPSHOT join planned with {@code
 * table.exec.lateral-snapshot.load-completed-on-caught-up} report a backlog until its readers have
 * caught up ({@link BacklogReportingScanSource}), so that the join's load phase ends when the
 * source has read what it had to read.
 *
 * <p>The scan is found from the join's build input through nodes of one input each (exchanges,
 * calcs, watermark assigners, ChangelogNormalize): Flink passes a backlog through every one of
 * them. Every node on that path, the scan included, must have the join as its only consumer: a
 * backlog reported to another consumer would change how that one runs, since Flink checkpoints
 * during a backlog at {@code execution.checkpointing.interval-during-backlog}. A build input of
 * another shape (a union, a scan shared with the probe side) is left as it is; the join then logs
 * at its start that its load phase ends by the other conditions.
 *
 * <p>The graph changes in place, in the specs of the scans only, so the processor also applies to a
 * compiled plan right before it is translated; the plan's JSON form, the scan's uid and the
 * source's state are the same as without it.
 */
public final class BuildSourceBacklogReporting implements ExecNodeGraphProcessor {

    @Override
    public ExecNodeGraph process(ExecNodeGraph graph, ProcessorContext context) {
        PlannerBase planner = context.getPlanner();
        ExecGraphNodes graphNodes = ExecGraphNodes.of(graph);
        for (ExecNode<?> node : graphNodes.nodes()) {
            if (node instanceof StreamExecLateralSnapshotJoin
                    && ((StreamExecLateralSnapshotJoin) node).isLoadCompletedOnCaughtUp()) {
                buildScan(node, graphNodes)
                        .ifPresent(
                                scan ->
                                        TableSourceScans.replaceSource(
                                                scan, planner, BacklogReportingScanSource::of));
            }
        }
        return graph;
    }

    /** The scan that only the join's build input reads, if there is one. */
    private static Optional<ExecNode<?>> buildScan(ExecNode<?> join, ExecGraphNodes graphNodes) {
        ExecNode<?> node = join.getInputEdges().get(1).getSource();
        while (graphNodes.hasOneConsumer(node)) {
            if (TableSourceScans.isTableSourceScan(node)) {
                return Optional.of(node);
            }
            if (node.getInputEdges().size() != 1) {
                return Optional.empty();
            }
            node = node.getInputEdges().get(0).getSource();
        }
        return Optional.empty();
    }
}
