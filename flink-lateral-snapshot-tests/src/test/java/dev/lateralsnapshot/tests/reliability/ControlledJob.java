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

package dev.lateralsnapshot.tests.reliability;

import dev.lateralsnapshot.config.LateralSnapshotOptions;
import dev.lateralsnapshot.tests.runtime.Await;
import dev.lateralsnapshot.tests.runtime.MiniClusterTestBase;
import dev.lateralsnapshot.testutils.connectors.CollectedRows;
import dev.lateralsnapshot.testutils.connectors.CollectingTableFactory;
import dev.lateralsnapshot.testutils.connectors.ProbeChannel;
import dev.lateralsnapshot.testutils.connectors.ProbeTableFactory;
import dev.lateralsnapshot.testutils.environments.StateBackendKind;
import dev.lateralsnapshot.testutils.metrics.JoinMetrics;

import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.table.api.CompiledPlan;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.LongStream;

import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static org.apache.flink.util.Preconditions.checkState;

/**
 * A streaming job whose input rows the test hands over and whose output rows it collects: a table
 * environment with the join installed, a {@code 'test-probe'} channel for the orders, a changelog
 * {@code 'test-probe'} channel for a build side, and a {@code 'test-collect'} sink. The test
 * creates the tables it needs with {@link #ordersOptions()}, {@link #ratesOptions()} and {@link
 * #sinkOptions()}, and submits one {@code INSERT INTO} or compiled plan. Closing stops the job and
 * releases the channels.
 */
final class ControlledJob implements AutoCloseable {

    private final TableEnvironment env;
    private final ProbeChannel orders;
    private final ProbeChannel rates;
    private final CollectedRows output;
    private RunningJob job;

    /** Number of rows the sources were handed, which the join must have read to be idle. */
    private long ordersEmitted;

    private long buildChangesEmitted;

    private ControlledJob(
            TableEnvironment env, ProbeChannel orders, ProbeChannel rates, CollectedRows output) {
        this.env = env;
        this.orders = orders;
        this.rates = rates;
        this.output = output;
    }

    /** An environment for a job at a parallelism on a state backend, with nothing submitted yet. */
    static ControlledJob prepare(StateBackendKind backend, int parallelism) {
        return prepare(MiniClusterTestBase.streamingEnvironment(backend, parallelism), parallelism);
    }

    /** A job in the given environment, of jobs at the parallelism, with nothing submitted yet. */
    static ControlledJob prepare(TableEnvironment env, int parallelism) {
        return new ControlledJob(
                env,
                ProbeChannel.open(parallelism),
                ProbeChannel.open(parallelism),
                CollectedRows.open());
    }

    TableEnvironment env() {
        return env;
    }

    /** The options of an orders table fed by {@link #emitOrders}. */
    String ordersOptions() {
        return ProbeTableFactory.options(orders);
    }

    /** The options of a changelog table fed by {@link #emitBuild}. */
    String ratesOptions() {
        return ProbeTableFactory.changelogOptions(rates);
    }

    /** The options of a sink table whose rows {@link #output()} returns. */
    String sinkOptions() {
        return CollectingTableFactory.options(output);
    }

    /** Runs an {@code INSERT INTO} and waits until all its tasks run. */
    ControlledJob submit(MiniCluster cluster, String insert) throws Exception {
        checkState(job == null, "A job was submitted already.");
        job = RunningJob.of(cluster, env.executeSql(insert));
        return this;
    }

    /** Runs a compiled plan and waits until all its tasks run. */
    ControlledJob submit(MiniCluster cluster, CompiledPlan plan) throws Exception {
        checkState(job == null, "A job was submitted already.");
        job = RunningJob.of(cluster, plan.execute());
        return this;
    }

    RunningJob job() {
        return job;
    }

    // ---- input ----

    static Row insert(Object... fields) {
        return Row.ofKind(RowKind.INSERT, fields);
    }

    static Row updateBefore(Object... fields) {
        return Row.ofKind(RowKind.UPDATE_BEFORE, fields);
    }

    static Row updateAfter(Object... fields) {
        return Row.ofKind(RowKind.UPDATE_AFTER, fields);
    }

    static Row delete(Object... fields) {
        return Row.ofKind(RowKind.DELETE, fields);
    }

    static long millis(LocalDateTime time) {
        return time.toInstant(ZoneOffset.UTC).toEpochMilli();
    }

    /** Emits orders with just an id, spread over the probe source's subtasks. */
    void emitOrders(long firstId, long lastId) {
        emitOrders(LongStream.rangeClosed(firstId, lastId).mapToObj(Row::of).toArray(Row[]::new));
    }

    /** Emits orders, spread over the probe source's subtasks. */
    void emitOrders(Row... rows) {
        orders.emit(rows);
        ordersEmitted += rows.length;
    }

    /** Emits build changes, in order, from one build source subtask. */
    void emitBuild(Row... changes) {
        rates.emitTo(0, changes);
        buildChangesEmitted += changes.length;
    }

    /**
     * Waits until the join has read every row the channels were handed. Only then does a savepoint
     * hold them: a row still queued in a source when the savepoint is taken is not in it.
     */
    void awaitAllRowsRead() throws Exception {
        // A broadcast build side reaches every subtask of the join (docs/operations.md).
        boolean broadcast =
                "broadcast"
                        .equalsIgnoreCase(
                                env.getConfig().get(LateralSnapshotOptions.BUILD_DISTRIBUTION));
        job.awaitMetrics(
                "the join reads all "
                        + ordersEmitted
                        + " orders and "
                        + buildChangesEmitted
                        + " build changes"
                        + (broadcast ? " on every subtask" : ""),
                m ->
                        !m.subtasks().isEmpty()
                                && m.sum("numRecordsIn")
                                        == ordersEmitted
                                                + buildChangesEmitted
                                                        * (broadcast ? m.subtasks().size() : 1));
    }

    /** Waits until every subtask's build watermark is the given one. */
    void awaitBuildWatermark(long watermark) throws Exception {
        job.awaitMetrics(
                "the build watermark reaches " + watermark,
                m -> m.allEqual(CURRENT_BUILD_SIDE_WATERMARK, watermark));
    }

    // ---- output ----

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
        return job.metrics();
    }

    /** Waits until every row is read, then stops the job with a savepoint in a directory. */
    String stopWithSavepoint(Path directory) throws Exception {
        awaitAllRowsRead();
        return job.stopWithSavepoint(directory);
    }

    @Override
    public void close() throws Exception {
        try {
            if (job != null) {
                job.close();
            }
        } finally {
            orders.close();
            rates.close();
            output.close();
        }
    }
}
