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
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A Kafka Connect worker in distributed mode, with Debezium's PostgreSQL connector, started from
 * the jars of the distribution's {@code connect/} by its {@code bin/connect-local.sh}, as a user
 * starts one, on a {@link LocalKafkaBroker}; connectors are added and watched with the script's
 * {@code add-connector} and {@code status}.
 *
 * <p>Every worker gets a directory of its own and a free port for its REST API. It keeps its
 * connectors and their offsets in topics of the broker, so a worker killed with {@link #kill()} and
 * started again with {@link #restart()} resumes them. {@link #close()} stops it by PID; a JVM
 * shutdown hook kills it if the test JVM ends without closing it.
 */
final class LocalConnectWorker implements AutoCloseable {

    private static final Duration SCRIPT_TIMEOUT = Duration.ofSeconds(180);
    private static final Duration RUNNING_TIMEOUT = Duration.ofSeconds(120);
    private static final int START_ATTEMPTS = 3;

    private static final String MAIN_CLASS = "org.apache.kafka.connect.cli.ConnectDistributed";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path directory;
    private final Thread shutdownHook;
    private int connectorFiles;

    private LocalConnectWorker(Path directory, Thread shutdownHook) {
        this.directory = directory;
        this.shutdownHook = shutdownHook;
    }

    /**
     * Starts a worker on the broker with {@code bin/connect-local.sh start}, which returns once its
     * REST API accepts connections. A port found free can be taken before the worker binds it; a
     * start that fails is therefore tried again, on a new port, a few times.
     */
    static LocalConnectWorker start(LocalKafkaBroker broker) throws IOException {
        Path runs = DistributionScript.distribution().getParent().resolve("e2e-runs");
        Files.createDirectories(runs);
        for (int attempt = 1; ; attempt++) {
            Path directory = Files.createTempDirectory(runs, "connect-");
            Map<String, String> environment =
                    Map.of(
                            "CONNECT_LOCAL_DIR", directory.toString(),
                            "KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers(),
                            "CONNECT_PORT", String.valueOf(FreePort.find()));
            Thread shutdownHook = new Thread(() -> killWorker(directory), "stop-local-connect");
            Runtime.getRuntime().addShutdownHook(shutdownHook);
            try {
                DistributionScript.run(
                        directory, environment, SCRIPT_TIMEOUT, null, "connect-local.sh", "start");
                return new LocalConnectWorker(directory, shutdownHook);
            } catch (RuntimeException | Error e) {
                killWorker(directory);
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
                if (attempt == START_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    // ---- connectors ----

    /**
     * Adds a connector with {@code connect-local.sh add-connector}, its JSON in a file as a user
     * writes it, and waits until it and its tasks run.
     */
    void addConnector(String name, String json) {
        try {
            Path file =
                    Files.writeString(
                            directory.resolve(name + "-" + ++connectorFiles + ".json"), json);
            script("add-connector", file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        awaitRunning(name);
    }

    /** The connector's status as {@code connect-local.sh status} prints it. */
    JsonNode status(String name) {
        try {
            return JSON.readTree(script("status", name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until the connector and each of its tasks is RUNNING; fails at once on FAILED. */
    void awaitRunning(String name) {
        Wait.until(
                RUNNING_TIMEOUT,
                "connector " + name + " and its tasks RUNNING (log in " + directory + "/log)",
                () -> {
                    JsonNode status;
                    try {
                        status = status(name);
                    } catch (AssertionError notYetKnown) {
                        return false;
                    }
                    boolean running =
                            status.path("connector").path("state").asText().equals("RUNNING");
                    boolean anyTask = false;
                    for (JsonNode task : status.path("tasks")) {
                        String state = task.path("state").asText();
                        if (state.equals("FAILED")) {
                            throw new AssertionError(
                                    "A task of connector " + name + " failed: " + task);
                        }
                        running &= state.equals("RUNNING");
                        anyTask = true;
                    }
                    return running && anyTask;
                });
    }

    // ---- a crashing worker ----

    /**
     * Kills the worker with SIGKILL, as a machine or a JVM dies: it commits no offsets and leaves
     * its group without a word.
     */
    void kill() {
        ProcessHandle worker =
                ourWorker(directory)
                        .orElseThrow(() -> new AssertionError("the worker is not running"));
        worker.destroyForcibly();
        worker.onExit().orTimeout(30, TimeUnit.SECONDS).join();
    }

    /** Starts the worker again on its configuration, which resumes its connectors. */
    void restart() {
        script("start");
    }

    /** The worker's log, for a test that must say what the connector did. */
    Path log() {
        return directory.resolve("log").resolve("connect.log");
    }

    // ---- stopping ----

    @Override
    public void close() {
        try {
            script("stop");
        } finally {
            killWorker(directory);
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs or ran already
            }
        }
    }

    /** The backstop: kills the worker if it still runs, and only if the process is this worker. */
    private static void killWorker(Path directory) {
        ourWorker(directory)
                .ifPresent(
                        worker -> {
                            worker.destroyForcibly();
                            worker.onExit().orTimeout(30, TimeUnit.SECONDS).join();
                        });
    }

    /** The worker's process, by the PID that the script wrote, if it runs and is this worker. */
    private static Optional<ProcessHandle> ourWorker(Path directory) {
        Path pidFile = directory.resolve("connect.pid");
        if (!Files.exists(pidFile)) {
            return Optional.empty();
        }
        String config = directory.resolve("worker.properties").toString();
        try {
            long pid = Long.parseLong(Files.readString(pidFile, StandardCharsets.UTF_8).trim());
            return ProcessHandle.of(pid)
                    .filter(ProcessHandle::isAlive)
                    .filter(
                            handle ->
                                    handle.info()
                                            .commandLine()
                                            .filter(
                                                    line ->
                                                            line.contains(
                                                                    MAIN_CLASS + " " + config))
                                            .isPresent());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- helpers ----

    private String script(String... arguments) {
        String[] command = new String[arguments.length + 1];
        command[0] = "connect-local.sh";
        System.arraycopy(arguments, 0, command, 1, arguments.length);
        return DistributionScript.run(
                directory,
                Map.of("CONNECT_LOCAL_DIR", directory.toString()),
                SCRIPT_TIMEOUT,
                null,
                command);
    }
}
