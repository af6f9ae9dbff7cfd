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

import dev.lateralsnapshot.tests.runtime.Await;
import dev.lateralsnapshot.testutils.metrics.JoinMetrics;
import dev.lateralsnapshot.testutils.metrics.JoinMetricsReporter;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.executiongraph.ErrorInfo;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.table.api.TableResult;

import java.nio.file.Path;
import java.util.function.Predicate;
import java.util.stream.StreamSupport;

/**
 * A job on a MiniCluster, seen from the test: its tasks, checkpoints, failures and the join's
 * metrics. Closing it cancels the job and waits until it is gone, unless it has already ended.
 */
final class RunningJob implements AutoCloseable {

    private final MiniCluster cluster;
    private final JobClient client;

    private RunningJob(MiniCluster cluster, JobClient client) {
        this.cluster = cluster;
        this.client = client;
    }

    /** The job an {@code INSERT INTO} started, once all its tasks run. */
    static RunningJob of(MiniCluster cluster, TableResult insert) throws Exception {
        RunningJob job = new RunningJob(cluster, insert.getJobClient().orElseThrow());
        try {
            job.awaitAllTasksRunning();
        } catch (Exception | AssertionError e) {
            // The caller never gets the job to close: its slots would be taken for good.
            job.close();
            throw e;
        }
        return job;
    }

    JobID id() {
        return client.getJobID();
    }

    /**
     * Waits until every task of the job runs (or has finished), for example again after a restart;
     * fails at once, with the cause, when the job has failed for good (say, because it cannot
     * restore its state).
     */
    void awaitAllTasksRunning() throws Exception {
        Await.until(
                "all tasks of job " + id() + " run",
                () -> {
                    AccessExecutionGraph graph = graph();
                    if (graph.getState().isGloballyTerminalState()) {
                        throw new AssertionError(
                                "Job " + id() + " ended " + graph.getState() + ".", failureCause());
                    }
                    return allTasksRunning(graph);
                },
                this::toString);
    }

    /**
     * Waits until a checkpoint that was triggered after this call has completed: everything a
     * source emitted before the call is then in the state of that checkpoint or beyond it.
     */
    void awaitCheckpointTriggeredFromNow() throws Exception {
        long now = System.currentTimeMillis();
        Await.until(
                "a checkpoint triggered after " + now + " completes",
                () -> {
                    CompletedCheckpointStats latest =
                            checkpoints().getHistory().getLatestCompletedCheckpoint();
                    return latest != null && latest.getTriggerTimestamp() > now;
                },
                this::toString);
    }

    long completedCheckpoints() throws Exception {
        return checkpoints().getCounts().getNumberOfCompletedCheckpoints();
    }

    /** The size and duration of the latest completed checkpoint, as the web UI shows them. */
    String latestCheckpoint() throws Exception {
        CompletedCheckpointStats latest = checkpoints().getHistory().getLatestCompletedCheckpoint();
        return latest == null
                ? "none"
                : String.format(
                        "checkpoint %d: %d MiB of state, %d MiB written, %d ms",
                        latest.getCheckpointId(),
                        latest.getStateSize() >> 20,
                        latest.getCheckpointedSize() >> 20,
                        latest.getEndToEndDuration());
    }

    long failedCheckpoints() throws Exception {
        return checkpoints().getCounts().getNumberOfFailedCheckpoints();
    }

    /** The number of times the job failed and was restarted (or failed for good). */
    int failures() throws Exception {
        return (int)
                StreamSupport.stream(
                                cluster.getExecutionGraphInfo(id())
                                        .get()
                                        .getExceptionHistory()
                                        .spliterator(),
                                false)
                        .count();
    }

    JobStatus jobStatus() throws Exception {
        return client.getJobStatus().get();
    }

    /** Waits until the job has ended, and returns how. */
    JobStatus awaitTermination() throws Exception {
        Await.until(
                "job " + id() + " ends",
                () -> jobStatus().isGloballyTerminalState(),
                this::toString);
        return jobStatus();
    }

    /** The failure that ended or last restarted the job, or null. */
    Throwable failureCause() throws Exception {
        ErrorInfo failure = graph().getFailureInfo();
        return failure == null
                ? null
                : failure.getException().deserializeError(getClass().getClassLoader());
    }

    JoinMetrics metrics() {
        return JoinMetricsReporter.of(id());
    }

    /** Waits until the join's metrics satisfy a condition, and returns them. */
    JoinMetrics awaitMetrics(String awaited, Predicate<JoinMetrics> condition) throws Exception {
        Await.until(awaited, () -> condition.test(metrics()), this::metrics);
        return metrics();
    }

    /**
     * Stops the job with a canonical savepoint in a directory, and returns the savepoint's path.
     */
    String stopWithSavepoint(Path directory) throws Exception {
        String path =
                client.stopWithSavepoint(
                                false, directory.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get();
        awaitTermination();
        return path;
    }

    String stateBackendName() throws Exception {
        return graph().getStateBackendName().orElse("none");
    }

    private AccessExecutionGraph graph() throws Exception {
        return cluster.getExecutionGraph(id()).get();
    }

    private CheckpointStatsSnapshot checkpoints() throws Exception {
        return graph().getCheckpointStatsSnapshot();
    }

    /** The job's status and failures, for the message of a failed wait. */
    @Override
    public String toString() {
        try {
            return String.format(
                    "job %s: %s, %d failures, %d checkpoints completed",
                    id(), jobStatus(), failures(), completedCheckpoints());
        } catch (Exception e) {
            return "job " + id() + ": unknown status, " + e;
        }
    }

    /** Whether every task runs, or has finished, as a bounded source does when it is read. */
    private static boolean allTasksRunning(AccessExecutionGraph graph) {
        // While the job initializes, its graph is a placeholder without vertices.
        if (graph.getState() != JobStatus.RUNNING || graph.getAllVertices().isEmpty()) {
            return false;
        }
        for (AccessExecutionVertex vertex : graph.getAllExecutionVertices()) {
            ExecutionState state = vertex.getExecutionState();
            if (state != ExecutionState.RUNNING && state != ExecutionState.FINISHED) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() throws Exception {
        if (!jobStatus().isGloballyTerminalState()) {
            client.cancel().get();
            awaitTermination();
        }
    }
}
