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

package dev.lateralsnapshot.e2e;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job on the cluster, seen through the REST API as the Web UI shows it: its state, its vertices
 * and, for a job with a LATERAL SNAPSHOT join, the join operator's metrics per subtask.
 *
 * <p>Operator metric names carry the operator name as a prefix, for example {@code
 * LateralSnapshotJoin[9].currentPhase}; the number depends on the plan, so the prefix is taken from
 * the vertex's list of metrics.
 */
final class ClusterJob {

    static final String JOIN_OPERATOR = "LateralSnapshotJoin";

    /** How the SQL Client reports a submitted job. */
    private static final Pattern SQL_CLIENT_JOB_ID = Pattern.compile("Job ID: ([0-9a-f]{32})");

    private static final Duration METRICS_TIMEOUT = Duration.ofSeconds(60);

    /** The job states after which a job never runs again. */
    private static final Set<String> TERMINAL_STATES = Set.of("FAILED", "CANCELED", "FINISHED");

    private static final String CAUSED_BY = "Caused by: ";

    /** What {@link #recoveryFrom} answers once the job runs again without the dead TaskManager. */
    private static final String RECOVERED = "recovered";

    /**
     * The JobManager answers a metrics request from its store and only then fetches newer values
     * (at most once per {@code metrics.fetcher.update-interval}, one second in these tests). A
     * request after a pause is therefore answered with values as old as the pause; asking once and
     * again after this delay gives values at most this old.
     */
    private static final Duration METRICS_FETCH = Duration.ofMillis(1500);

    private final RestApi rest;
    private final String jobId;
    private long lastMetricsRequest;

    ClusterJob(RestApi rest, String jobId) {
        this.rest = rest;
        this.jobId = jobId;
    }

    /** The job the SQL Client submitted, by the id it printed, once all its tasks run. */
    static ClusterJob submittedBySqlClient(RestApi rest, String printed) {
        Matcher jobId = SQL_CLIENT_JOB_ID.matcher(printed);
        assertThat(jobId.find()).as("a submitted job in:%n%s", printed).isTrue();
        return new ClusterJob(rest, jobId.group(1)).awaitRunning();
    }

    /**
     * Runs the SQL Client with the DDL as its init script ({@code -i}) and the INSERT in a
     * statement file ({@code -f}), both in the cluster's run directory under the given name;
     * returns the job once it runs.
     */
    static ClusterJob submittedWithSqlClient(
            LocalFlinkCluster cluster, String name, String ddl, String insert) {
        try {
            Path init = Files.writeString(cluster.runDirectory().resolve(name + "-ddl.sql"), ddl);
            Path file =
                    Files.writeString(cluster.runDirectory().resolve(name + "-insert.sql"), insert);
            return submittedBySqlClient(cluster.rest(), cluster.sqlClientWithFile(init, file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String id() {
        return jobId;
    }

    JsonNode details() {
        return rest.get("/jobs/" + jobId);
    }

    String state() {
        return details().path("state").asText();
    }

    /** Waits until the job and all its tasks run. */
    ClusterJob awaitRunning() {
        await(
                METRICS_TIMEOUT,
                "the job and all its vertices RUNNING",
                () -> {
                    JsonNode details = details();
                    if (!details.path("state").asText().equals("RUNNING")) {
                        return false;
                    }
                    for (JsonNode vertex : details.path("vertices")) {
                        if (!vertex.path("status").asText().equals("RUNNING")) {
                            return false;
                        }
                    }
                    return true;
                },
                Boolean::booleanValue);
        return this;
    }

    /**
     * Polls the value until it matches, as {@link Wait#until} does, but fails at once when the job
     * has reached a terminal state (FAILED, for example, once its restart strategy gives up): no
     * wait on it can succeed then. Either failure, and a timeout, tells what {@link #describe()}
     * tells.
     */
    <T> T await(Duration timeout, String what, Supplier<T> value, Predicate<T> matches) {
        return Wait.until(
                timeout,
                what + " (job " + jobId + ")",
                () -> {
                    if (TERMINAL_STATES.contains(state())) {
                        throw new AssertionError(
                                "The job ended while waiting for " + what + ": " + describe());
                    }
                    return value.get();
                },
                matches,
                this::describe);
    }

    /**
     * Waits until the job has restarted since {@code since} (a time in milliseconds of this
     * machine's clock, which the JobManager shares) and runs again without the given TaskManager:
     * the job and every subtask RUNNING, each on a TaskManager that is registered and is not the
     * dead one.
     *
     * <p>A job that is RUNNING does not prove the restart: until the JobManager notices the dead
     * TaskManager, the job still runs as before the kill, and the REST API serves job details
     * cached for a few seconds ({@code web.refresh-interval}). The time of the last restart comes
     * with the same details, so a cached answer from before the restart never passes.
     */
    void awaitRestartWithout(
            String deadTaskManager,
            long since,
            Supplier<Set<String>> registeredTaskManagers,
            Duration timeout) {
        await(
                timeout,
                "a restart after "
                        + since
                        + " with every subtask RUNNING without "
                        + deadTaskManager,
                () -> recoveryFrom(deadTaskManager, since, registeredTaskManagers.get()),
                RECOVERED::equals);
    }

    /**
     * Waits until the join metric matches on every subtask (a join at any parallelism), and returns
     * its values.
     */
    List<Double> awaitMetricOnEverySubtask(
            String name, Duration timeout, Predicate<Double> matches) {
        return await(
                timeout,
                "join metric " + name + " to match on every subtask",
                () -> metric(name),
                values -> values.stream().allMatch(matches));
    }

    /**
     * The vertex whose name starts with the given operator (vertex names list chained operators).
     */
    JsonNode vertex(String operator) {
        for (JsonNode vertex : details().path("vertices")) {
            if (vertex.path("name").asText().contains(operator + "[")) {
                return vertex;
            }
        }
        throw new AssertionError("no vertex with " + operator + " in " + details());
    }

    JsonNode joinVertex() {
        return vertex(JOIN_OPERATOR);
    }

    /**
     * The values of one join metric, one per subtask, waiting until every subtask reports it
     * (metrics appear some time after the tasks start).
     */
    List<Double> metric(String name) {
        JsonNode vertex = joinVertex();
        String vertexPath = "/jobs/" + jobId + "/vertices/" + vertex.path("id").asText();
        int parallelism = vertex.path("parallelism").asInt();
        String qualified =
                await(
                        METRICS_TIMEOUT,
                        "metric " + name + " of the join operator",
                        () -> qualifiedName(vertexPath, name),
                        found -> found != null);
        if (System.nanoTime() - lastMetricsRequest > METRICS_FETCH.toNanos()) {
            // Answered from a store as old as the pause; the fetch it triggers is read below.
            subtaskMetric(vertexPath, 0, qualified);
            Wait.sleep(METRICS_FETCH);
        }
        return await(
                METRICS_TIMEOUT,
                "metric " + qualified + " of all " + parallelism + " subtasks",
                () -> {
                    List<Double> values = new ArrayList<>();
                    for (int subtask = 0; subtask < parallelism; subtask++) {
                        JsonNode answer = subtaskMetric(vertexPath, subtask, qualified);
                        if (answer.size() == 1) {
                            values.add(answer.get(0).path("value").asDouble());
                        }
                    }
                    return values;
                },
                values -> values.size() == parallelism);
    }

    /** The resource ids of the TaskManagers that run the join's subtasks now. */
    Set<String> joinTaskManagers() {
        JsonNode vertex =
                rest.get("/jobs/" + jobId + "/vertices/" + joinVertex().path("id").asText());
        Set<String> taskManagers = new TreeSet<>();
        for (JsonNode subtask : vertex.path("subtasks")) {
            taskManagers.add(subtask.path("taskmanager-id").asText());
        }
        return taskManagers;
    }

    /** How often the job has restarted after a failure (the job metric {@code numRestarts}). */
    long restarts() {
        JsonNode answer = rest.get("/jobs/" + jobId + "/metrics?get=numRestarts");
        return answer.size() == 1 ? answer.get(0).path("value").asLong() : 0;
    }

    /** The number of checkpoints the job has completed, over all its restarts. */
    long completedCheckpoints() {
        return rest.get("/jobs/" + jobId + "/checkpoints")
                .path("counts")
                .path("completed")
                .asLong();
    }

    /**
     * Waits until the job completes a checkpoint triggered after this call: the state it holds
     * includes everything the job had processed by now.
     */
    void awaitCheckpointTriggeredFromNow(Duration timeout) {
        long now = System.currentTimeMillis();
        await(
                timeout,
                "a checkpoint triggered after " + now,
                () ->
                        rest.get("/jobs/" + jobId + "/checkpoints")
                                .path("latest")
                                .path("completed")
                                .path("trigger_timestamp")
                                .asLong(),
                triggered -> triggered > now);
    }

    /** The value of a join metric of a join with parallelism 1. */
    double metricValue(String name) {
        List<Double> values = metric(name);
        if (values.size() != 1) {
            throw new AssertionError(name + " has one value per subtask: " + values);
        }
        return values.get(0);
    }

    /** Waits until the join metric (parallelism 1) matches, and returns its value. */
    double awaitMetric(String name, Duration timeout, Predicate<Double> matches) {
        return await(
                timeout, "join metric " + name + " to match", () -> metricValue(name), matches);
    }

    /**
     * What the REST API tells about the job now, for failure messages: its state and restarts,
     * where its subtasks run, its checkpoints (a stuck one shows as in progress) and its last
     * exception. A part the REST API cannot answer says so instead.
     */
    String describe() {
        List<String> parts = new ArrayList<>();
        parts.add(describing("state", this::describeState));
        parts.add(describing("subtasks", this::describeSubtasks));
        parts.add(describing("checkpoints", this::describeCheckpoints));
        parts.add(describing("last exception", this::describeLastException));
        return "job " + jobId + ": " + String.join("; ", parts);
    }

    /**
     * {@link #RECOVERED} once the job has restarted since {@code since} and runs without the dead
     * TaskManager, otherwise what is missing.
     */
    private String recoveryFrom(String deadTaskManager, long since, Set<String> registered) {
        JsonNode details = details();
        long restarted = details.path("timestamps").path("RESTARTING").asLong();
        if (restarted < since) {
            return "no restart since " + since + " (last at " + restarted + ")";
        }
        String state = details.path("state").asText();
        if (!state.equals("RUNNING")) {
            return "job " + state;
        }
        for (JsonNode vertex : details.path("vertices")) {
            for (JsonNode subtask : vertexDetails(vertex).path("subtasks")) {
                String status = subtask.path("status").asText();
                String taskManager = subtask.path("taskmanager-id").asText();
                if (!status.equals("RUNNING")
                        || taskManager.equals(deadTaskManager)
                        || !registered.contains(taskManager)) {
                    return vertex.path("name").asText()
                            + " subtask "
                            + subtask.path("subtask").asInt()
                            + " "
                            + status
                            + " on "
                            + taskManager
                            + " (registered: "
                            + registered
                            + ")";
                }
            }
        }
        return RECOVERED;
    }

    private String describeState() {
        JsonNode details = details();
        return details.path("state").asText()
                + ", numRestarts "
                + restarts()
                + ", last restart at "
                + details.path("timestamps").path("RESTARTING").asLong()
                + ", now "
                + details.path("now").asLong();
    }

    private String describeSubtasks() {
        List<String> vertices = new ArrayList<>();
        for (JsonNode vertex : details().path("vertices")) {
            List<String> subtasks = new ArrayList<>();
            for (JsonNode subtask : vertexDetails(vertex).path("subtasks")) {
                subtasks.add(
                        subtask.path("status").asText()
                                + " on "
                                + subtask.path("taskmanager-id").asText());
            }
            vertices.add(vertex.path("name").asText() + " " + subtasks);
        }
        return String.join(", ", vertices);
    }

    private String describeCheckpoints() {
        JsonNode checkpoints = rest.get("/jobs/" + jobId + "/checkpoints");
        JsonNode counts = checkpoints.path("counts");
        JsonNode completed = checkpoints.path("latest").path("completed");
        JsonNode failed = checkpoints.path("latest").path("failed");
        StringBuilder text =
                new StringBuilder()
                        .append(counts.path("completed").asLong())
                        .append(" completed (latest ")
                        .append(completed.path("id").asText("none"))
                        .append(" triggered at ")
                        .append(completed.path("trigger_timestamp").asLong())
                        .append("), ")
                        .append(counts.path("failed").asLong())
                        .append(" failed (latest ")
                        .append(failed.path("id").asText("none"))
                        .append(": ")
                        .append(failed.path("failure_message").asText())
                        .append("), in progress:");
        for (JsonNode checkpoint : checkpoints.path("history")) {
            if (checkpoint.path("status").asText().equals("IN_PROGRESS")) {
                text.append(" ")
                        .append(checkpoint.path("id").asLong())
                        .append(" triggered at ")
                        .append(checkpoint.path("trigger_timestamp").asLong())
                        .append(" with ")
                        .append(checkpoint.path("num_acknowledged_subtasks").asInt())
                        .append("/")
                        .append(checkpoint.path("num_subtasks").asInt())
                        .append(" subtasks acknowledged");
            }
        }
        return text.toString();
    }

    /** The stack traces of the job's exception history, newest first. */
    List<String> failureStackTraces() {
        List<String> stackTraces = new ArrayList<>();
        for (JsonNode entry : exceptionHistory()) {
            stackTraces.add(entry.path("stacktrace").asText(""));
        }
        return stackTraces;
    }

    /**
     * The root cause of a stack trace of the exception history: its last "Caused by" without the
     * prefix, or its first line when nothing caused it.
     */
    static String rootCause(String stackTrace) {
        String[] lines = stackTrace.split("\n");
        String causedBy = lastCausedBy(lines);
        return causedBy == null ? lines[0] : causedBy.substring(CAUSED_BY.length());
    }

    /** The last "Caused by" line of a stack trace's lines, or null when nothing caused it. */
    private static String lastCausedBy(String[] lines) {
        String causedBy = null;
        for (String line : lines) {
            if (line.startsWith(CAUSED_BY)) {
                causedBy = line;
            }
        }
        return causedBy;
    }

    private JsonNode exceptionHistory() {
        return rest.get("/jobs/" + jobId + "/exceptions").path("exceptionHistory").path("entries");
    }

    /** The newest entry of the exception history: its first line and its root cause. */
    private String describeLastException() {
        JsonNode last = exceptionHistory().path(0);
        if (last.isMissingNode()) {
            return "none";
        }
        String[] lines = last.path("stacktrace").asText().split("\n");
        String rootCause = lastCausedBy(lines);
        return "at "
                + last.path("timestamp").asLong()
                + " in "
                + last.path("taskName").asText("the JobManager")
                + " on "
                + last.path("taskManagerId").asText("-")
                + ": "
                + lines[0]
                + (rootCause == null ? "" : " ... " + rootCause);
    }

    /** A part of {@link #describe()}, or why the REST API could not tell it. */
    private static String describing(String part, Supplier<String> description) {
        try {
            return part + ": " + description.get();
        } catch (AssertionError | RuntimeException e) {
            return part + ": unknown (" + e.getMessage() + ")";
        }
    }

    private JsonNode vertexDetails(JsonNode vertex) {
        return rest.get("/jobs/" + jobId + "/vertices/" + vertex.path("id").asText());
    }

    private JsonNode subtaskMetric(String vertexPath, int subtask, String metric) {
        lastMetricsRequest = System.nanoTime();
        return rest.get(
                vertexPath
                        + "/subtasks/"
                        + subtask
                        + "/metrics?get="
                        + URLEncoder.encode(metric, StandardCharsets.UTF_8));
    }

    /** The full name of the operator metric, or null while the subtasks have not reported it. */
    private String qualifiedName(String vertexPath, String name) {
        for (JsonNode metric : rest.get(vertexPath + "/metrics")) {
            // ids are "<subtask>.<operator>[<n>].<metric>"
            String id = metric.path("id").asText();
            String withoutSubtask = id.substring(id.indexOf('.') + 1);
            if (withoutSubtask.startsWith(JOIN_OPERATOR + "[")
                    && withoutSubtask.endsWith("]." + name)) {
                return withoutSubtask;
            }
        }
        return null;
    }
}
