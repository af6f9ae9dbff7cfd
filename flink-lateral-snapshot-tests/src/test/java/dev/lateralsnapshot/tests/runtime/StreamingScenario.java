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

package dev.lateralsnapshot.tests.runtime;

import dev.lateralsnapshot.testutils.connectors.CollectedRows;
import dev.lateralsnapshot.testutils.connectors.CollectingTableFactory;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.connectors.ProbeChannel;
import dev.lateralsnapshot.testutils.connectors.ProbeTableFactory;
import dev.lateralsnapshot.testutils.environments.StateBackendKind;
import dev.lateralsnapshot.testutils.metrics.JoinMetrics;
import dev.lateralsnapshot.testutils.metrics.JoinMetricsReporter;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.LongStream;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ENRICHED_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;

/**
 * One streaming LATERAL SNAPSHOT job on a MiniCluster, at parallelism 2, over the tables of the
 * reference (docs/lateral-snapshot-join.md, "Syntax").
 *
 * <ul>
 *   <li>{@code rates}, the build side, is a directory of debezium-json files that the filesystem
 *       source monitors, as in the reference; {@link #writeBuildFile} drops the files of {@code
 *       RateChanges} into it.
 *   <li>{@code orders}, the probe side, has the reference's schema (the currency cycles B, C, A
 *       with the order id, {@code ts AS LOCALTIMESTAMP}, watermark {@code ts - 1 s}), but instead
 *       of a datagen emitting one order per second it emits exactly the orders {@link #emitOrders}
 *       asks for, so that the test knows which orders exist before and after a build change.
 *   <li>{@code enriched}, the sink, collects every output row with its change kind.
 * </ul>
 */
final class StreamingScenario implements AutoCloseable {

    static final int PARALLELISM = 2;

    /** A metric value expected on each of the join's subtasks. */
    static Map<Integer, Long> onEverySubtask(long value) {
        Map<Integer, Long> values = new LinkedHashMap<>();
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            values.put(subtask, value);
        }
        return values;
    }

    private final MiniCluster cluster;
    private final Path buildDirectory;
    private final ProbeChannel orders;
    private final CollectedRows output;
    private final TableEnvironment env;
    private JobClient job;

    private StreamingScenario(
            MiniCluster cluster,
            Path buildDirectory,
            ProbeChannel orders,
            CollectedRows output,
            TableEnvironment env) {
        this.cluster = cluster;
        this.buildDirectory = buildDirectory;
        this.orders = orders;
        this.output = output;
        this.env = env;
    }

    /** Creates the tables in a fresh environment with an empty build directory under a parent. */
    static StreamingScenario create(MiniCluster cluster, StateBackendKind backend, Path parent)
            throws IOException {
        Path buildDirectory = Files.createTempDirectory(parent, "build");
        ProbeChannel orders = ProbeChannel.open(PARALLELISM);
        CollectedRows output = CollectedRows.open();
        TableEnvironment env = MiniClusterTestBase.streamingEnvironment(backend, PARALLELISM);
        env.executeSql(
                createTable(
                        "rates",
                        RATES_COLUMNS,
                        // The reference's 2 s, shortened: how soon a dropped file is read.
                        Directories.filesystem(buildDirectory, "debezium-json")
                                + ", 'source.monitor-interval' = '100ms'"));
        env.executeSql(createTable("orders", ORDERS_COLUMNS, ProbeTableFactory.options(orders)));
        env.executeSql(
                createTable("enriched", ENRICHED_COLUMNS, CollectingTableFactory.options(output)));
        return new StreamingScenario(cluster, buildDirectory, orders, output, env);
    }

    /** Runs {@code INSERT INTO enriched <query>} and waits until all its tasks run. */
    void submit(String query) throws Exception {
        job = env.executeSql("INSERT INTO enriched " + query).getJobClient().orElseThrow();
        Await.until(
                "all tasks of job " + job.getJobID() + " run",
                () -> allTasksRunning(graph()),
                () -> job.getJobStatus().join());
    }

    /** Emits the orders with the given ids, in order, spread over the probe source's subtasks. */
    void emitOrders(long firstId, long lastId) {
        orders.emit(LongStream.rangeClosed(firstId, lastId).mapToObj(Row::of).toArray(Row[]::new));
    }

    /** Drops a build file, atomically. */
    void writeBuildFile(String name, List<String> lines) {
        Directories.writeAtomically(buildDirectory, name, lines);
    }

    /** The rows the sink received so far, in arrival order. */
    List<String> output() {
        return output.rows();
    }

    /** Waits until the sink has received at least this many rows, and returns them. */
    List<String> awaitOutput(int rows) throws Exception {
        Await.until(rows + " output rows", () -> output.size() >= rows, output::rows);
        return output.rows();
    }

    JoinMetrics metrics() {
        return JoinMetricsReporter.of(job.getJobID());
    }

    /** Waits until the join's metrics satisfy a condition, and returns them. */
    JoinMetrics awaitMetrics(String awaited, Predicate<JoinMetrics> condition) throws Exception {
        Await.until(awaited, () -> condition.test(metrics()), this::metrics);
        return metrics();
    }

    /** The state backend the running job really uses. */
    String stateBackendName() throws Exception {
        return graph().getStateBackendName().orElse("none");
    }

    /** The parallelism of every job vertex, by vertex name. */
    Map<String, Integer> vertexParallelism() throws Exception {
        Map<String, Integer> parallelism = new LinkedHashMap<>();
        for (AccessExecutionJobVertex vertex : graph().getVerticesTopologically()) {
            parallelism.put(vertex.getName(), vertex.getParallelism());
        }
        return parallelism;
    }

    private AccessExecutionGraph graph() throws Exception {
        return cluster.getExecutionGraph(job.getJobID()).get();
    }

    /** Whether every task of the job runs: its operators are open and their metrics registered. */
    static boolean allTasksRunning(AccessExecutionGraph graph) {
        // While the job initializes, its graph is a placeholder without vertices.
        if (graph.getAllVertices().isEmpty()) {
            return false;
        }
        for (AccessExecutionVertex vertex : graph.getAllExecutionVertices()) {
            if (vertex.getExecutionState() != ExecutionState.RUNNING) {
                return false;
            }
        }
        return true;
    }

    /** Cancels the job and waits until it is gone, then releases the probe channel and sink. */
    @Override
    public void close() throws Exception {
        try {
            if (job != null) {
                job.cancel().get();
                Await.until(
                        "job " + job.getJobID() + " is cancelled",
                        () -> job.getJobStatus().get().isGloballyTerminalState(),
                        () -> job.getJobStatus().join());
            }
        } finally {
            orders.close();
            output.close();
        }
    }
}
