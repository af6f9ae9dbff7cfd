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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A standalone Flink session cluster on this machine, started from the distribution that this
 * module assembles ({@code target/flink-2.3.0}, with the drop-in jar in {@code lib/}) through its
 * own scripts: one JobManager and two TaskManagers, each in its own JVM.
 *
 * <p>Every cluster gets a fresh run directory (configuration, logs, checkpoints, savepoints,
 * temporary files) and free ports, so runs never share state. {@link #close()} stops every process
 * the cluster started, by PID; a JVM shutdown hook does the same if the test JVM ends without
 * closing it.
 */
final class LocalFlinkCluster implements AutoCloseable {

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration CLIENT_TIMEOUT = Duration.ofMinutes(3);
    private static final int TASK_MANAGERS = 2;
    private static final int START_ATTEMPTS = 3;

    /** Main classes of the daemons, to tell our processes from any other with a reused PID. */
    private static final List<String> DAEMON_MAIN_CLASSES =
            List.of(
                    "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                    "org.apache.flink.runtime.taskexecutor.TaskManagerRunner");

    private final Path runDirectory;
    private final Path confDirectory;
    private final Path logDirectory;
    private final RestApi rest;
    private final Thread shutdownHook;

    private LocalFlinkCluster(Path runDirectory, int restPort) {
        this.runDirectory = runDirectory;
        this.confDirectory = runDirectory.resolve("conf");
        this.logDirectory = runDirectory.resolve("log");
        this.rest = new RestApi("http://localhost:" + restPort);
        this.shutdownHook = new Thread(this::killDaemons, "stop-local-flink-cluster");
    }

    /**
     * Starts a cluster with the distribution's {@code conf/config.yaml}, changed by the given
     * options (flat keys), and waits until both TaskManagers have registered. A port found free can
     * be taken by another process before the JobManager binds it; a start whose daemons die is
     * therefore tried again, on new ports, a few times.
     */
    static LocalFlinkCluster start(Map<String, String> options) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOnce(options);
            } catch (DaemonDiedException e) {
                if (attempt == START_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    private static LocalFlinkCluster startOnce(Map<String, String> options) throws IOException {
        Path distribution = DistributionScript.distribution();
        Path runs = distribution.getParent().resolve("e2e-runs");
        Files.createDirectories(runs);
        Path runDirectory = Files.createTempDirectory(runs, "run-");
        int restPort = FreePort.find();

        Map<String, String> config = readFlatConfig(distribution.resolve("conf/config.yaml"));
        config.put("rest.port", String.valueOf(restPort));
        config.put("jobmanager.rpc.port", String.valueOf(FreePort.find()));
        config.put("execution.checkpointing.dir", uri(runDirectory.resolve("checkpoints")));
        config.put(
                "execution.checkpointing.savepoint-dir", uri(runDirectory.resolve("savepoints")));
        config.put("io.tmp.dirs", runDirectory.resolve("tmp").toString());
        config.put("web.tmpdir", runDirectory.resolve("tmp/web").toString());
        config.put("blob.storage.directory", runDirectory.resolve("tmp/blobs").toString());
        config.putAll(options);

        LocalFlinkCluster cluster = new LocalFlinkCluster(runDirectory, restPort);
        Files.createDirectories(cluster.confDirectory);
        Files.createDirectories(cluster.logDirectory);
        Files.createDirectories(runDirectory.resolve("tmp"));
        try (Stream<Path> files = Files.list(distribution.resolve("conf"))) {
            for (Path file : files.collect(Collectors.toList())) {
                if (file.getFileName().toString().startsWith("log4j")) {
                    Files.copy(file, cluster.confDirectory.resolve(file.getFileName()));
                }
            }
        }
        Files.write(
                cluster.confDirectory.resolve("config.yaml"),
                config.entrySet().stream()
                        .map(option -> option.getKey() + ": " + option.getValue())
                        .collect(Collectors.toList()));

        Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
        try {
            cluster.runScript(
                    Duration.ofMinutes(1), null, "start-cluster.sh", String.valueOf(TASK_MANAGERS));
            cluster.awaitTaskManagers(TASK_MANAGERS);
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    RestApi rest() {
        return rest;
    }

    /** The directory of this run, for files the tests create (build side, SQL scripts). */
    Path runDirectory() {
        return runDirectory;
    }

    /** The directory of the daemons' logs and PID files. */
    Path logDirectory() {
        return logDirectory;
    }

    /**
     * Runs one of the distribution's scripts against this cluster's configuration and returns what
     * it printed; fails unless it exits with 0 within a minute.
     */
    String script(String... command) {
        return runScript(Duration.ofMinutes(1), null, command);
    }

    /** The PIDs of the running JobManager and TaskManagers. */
    List<Long> daemonPids() {
        return processes(DAEMON_MAIN_CLASSES).stream()
                .map(ProcessHandle::pid)
                .collect(Collectors.toList());
    }

    /**
     * The live processes that the distribution's scripts started for this cluster and that run one
     * of the given main classes: by the PIDs of the PID files in the log directory, each checked
     * for the main class and for a log file in that directory, as a PID may have gone to another
     * process since.
     */
    List<ProcessHandle> processes(List<String> mainClasses) {
        return readPids().stream()
                .map(ProcessHandle::of)
                .flatMap(Optional::stream)
                .filter(process -> isOurs(process, mainClasses))
                .collect(Collectors.toList());
    }

    // ---- TaskManager failures ----

    /**
     * Kills the TaskManager with the given resource id (as the REST API names it) with SIGKILL, the
     * way a machine or a JVM dies: no shutdown hook runs, nothing is flushed or deregistered.
     */
    void killTaskManager(String resourceId) {
        Optional<ProcessHandle> process =
                ProcessHandle.of(taskManagerPid(resourceId))
                        .filter(handle -> isOurs(handle, DAEMON_MAIN_CLASSES));
        if (process.isEmpty()) {
            throw new AssertionError("TaskManager " + resourceId + " is not running");
        }
        process.get().destroyForcibly();
        process.get().onExit().orTimeout(30, TimeUnit.SECONDS).join();
    }

    /**
     * Starts one more TaskManager, as {@code bin/taskmanager.sh start} does, and waits until it has
     * registered at the JobManager. Counting the TaskManagers would not tell: a killed one is
     * counted until its heartbeat times out, so the count can be right before the new one is up,
     * and a JVM takes many seconds to start on a loaded machine.
     */
    void startTaskManager() {
        Set<String> before = taskManagerIds();
        runScript(Duration.ofMinutes(1), null, "taskmanager.sh", "start");
        Wait.until(
                STARTUP_TIMEOUT,
                "a new TaskManager registered at the JobManager besides "
                        + before
                        + " (logs in "
                        + logDirectory
                        + ")",
                this::taskManagerIds,
                ids -> !before.containsAll(ids));
    }

    /** The resource ids of the TaskManagers registered at the JobManager now. */
    Set<String> taskManagerIds() {
        Set<String> ids = new TreeSet<>();
        for (JsonNode taskManager : rest.get("/taskmanagers").path("taskmanagers")) {
            ids.add(taskManager.path("id").asText());
        }
        return ids;
    }

    /**
     * The PID of a TaskManager, from the PID file: the n-th line is the TaskManager that logs to
     * {@code flink-<user>-taskexecutor-<n>-<host>.log}, where it logs its resource id at the start.
     */
    private long taskManagerPid(String resourceId) {
        String startLine = "Starting TaskManager with ResourceID: " + resourceId;
        List<String> pids = readLines(logFiles("-taskexecutor.pid").get(0));
        for (int n = 0; n < pids.size(); n++) {
            for (Path log : logFiles("-taskexecutor-" + n + "-", ".log")) {
                if (readLines(log).stream().anyMatch(line -> line.endsWith(startLine))) {
                    return Long.parseLong(pids.get(n).trim());
                }
            }
        }
        throw new AssertionError("no TaskManager log names resource id " + resourceId);
    }

    // ---- clients ----

    /**
     * Runs Flink's SQL Client (embedded mode) with an init script ({@code -i}) and a statement file
     * ({@code -f}), as a user runs a prepared script, and returns everything it printed.
     */
    String sqlClientWithFile(Path init, Path statements) {
        return runScript(
                CLIENT_TIMEOUT,
                null,
                "sql-client.sh",
                "-i",
                init.toString(),
                "-f",
                statements.toString(),
                "--history",
                runDirectory.resolve("sql-client-history").toString());
    }

    /**
     * Runs Flink's interactive SQL Client with an init script and types the statements into it, one
     * per line, as a user pastes them; a failing statement does not end the session there. Returns
     * everything it printed.
     */
    String sqlClientInteractive(Path init, List<String> statements) {
        String typed = String.join("\n", statements) + "\nQUIT;\n";
        return runScript(
                CLIENT_TIMEOUT,
                typed,
                "sql-client.sh",
                "-i",
                init.toString(),
                "--history",
                runDirectory.resolve("sql-client-history").toString());
    }

    /** Runs Flink's command line client ({@code bin/flink}) and returns everything it printed. */
    String flink(String... arguments) {
        List<String> command = new ArrayList<>();
        command.add("flink");
        command.addAll(List.of(arguments));
        return runScript(CLIENT_TIMEOUT, null, command.toArray(new String[0]));
    }

    // ---- the TaskManagers' stdout: the print sink ----

    /** The lines that the TaskManagers have printed so far, file by file. */
    Map<Path, List<String>> taskManagerOutput() {
        Map<Path, List<String>> output = new LinkedHashMap<>();
        for (Path file : logFiles("-taskexecutor-", ".out")) {
            output.put(file, readLines(file));
        }
        return output;
    }

    /** The TaskManagers' log files (not their stdout), sorted. */
    List<Path> taskManagerLogs() {
        return logFiles("-taskexecutor-", ".log");
    }

    /** The files of the log directory whose names hold {@code parts} in this order, sorted. */
    private List<Path> logFiles(String... parts) {
        String pattern =
                Stream.of(parts).map(Pattern::quote).collect(Collectors.joining(".*", ".*", "$"));
        try (Stream<Path> files = Files.list(logDirectory)) {
            return files.filter(file -> file.getFileName().toString().matches(pattern))
                    .sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The lines of a file the cluster writes, such as a log. */
    static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- stopping ----

    @Override
    public void close() {
        try {
            runScript(Duration.ofMinutes(1), null, "stop-cluster.sh");
        } finally {
            killDaemons();
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs or ran already
            }
        }
    }

    /** The backstop: kills what the scripts did not stop, only processes that are ours. */
    private void killDaemons() {
        processes(DAEMON_MAIN_CLASSES).forEach(ProcessHandle::destroyForcibly);
    }

    private List<Long> readPids() {
        List<Long> pids = new ArrayList<>();
        for (Path file : logFiles(".pid")) {
            for (String line : readLines(file)) {
                if (!line.isBlank()) {
                    pids.add(Long.parseLong(line.trim()));
                }
            }
        }
        return pids;
    }

    private boolean isOurs(ProcessHandle process, List<String> mainClasses) {
        return process.isAlive()
                && process.info()
                        .commandLine()
                        .filter(
                                commandLine ->
                                        commandLine.contains("-Dlog.file=" + logDirectory)
                                                && mainClasses.stream()
                                                        .anyMatch(commandLine::contains))
                        .isPresent();
    }

    // ---- helpers ----

    private void awaitTaskManagers(int expected) {
        Wait.until(
                STARTUP_TIMEOUT,
                expected
                        + " TaskManagers registered at the JobManager (logs in "
                        + logDirectory
                        + ")",
                () -> {
                    // Alive, not yet ours: a daemon just launched may still be the shell that
                    // execs its JVM, whose command line is the script's.
                    long alive = readPids().stream().filter(LocalFlinkCluster::isAlive).count();
                    if (alive < 1 + expected) {
                        throw new DaemonDiedException(
                                "A Flink daemon exited during the start; logs in " + logDirectory);
                    }
                    return rest.tryGet("/overview")
                            .filter(overview -> overview.path("taskmanagers").asInt() == expected)
                            .isPresent();
                });
    }

    private static boolean isAlive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** A daemon exited while the cluster started, typically because a port was taken. */
    private static final class DaemonDiedException extends RuntimeException {
        DaemonDiedException(String message) {
            super(message);
        }
    }

    /**
     * Runs one of the distribution's scripts against this cluster's configuration, with the given
     * standard input (none if null), and returns what it printed; fails unless it exits with 0.
     */
    private String runScript(Duration timeout, String input, String... command) {
        return DistributionScript.run(
                runDirectory,
                Map.of(
                        "FLINK_CONF_DIR", confDirectory.toString(),
                        "FLINK_LOG_DIR", logDirectory.toString()),
                timeout,
                input,
                command);
    }

    private static Map<String, String> readFlatConfig(Path file) throws IOException {
        Map<String, String> config = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String trimmed = line.trim();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            int colon = trimmed.indexOf(": ");
            assertThat(colon).as("flat 'key: value' line in %s: %s", file, line).isPositive();
            config.put(trimmed.substring(0, colon), trimmed.substring(colon + 2));
        }
        return config;
    }

    private static String uri(Path directory) {
        return directory.toUri().toString();
    }
}
