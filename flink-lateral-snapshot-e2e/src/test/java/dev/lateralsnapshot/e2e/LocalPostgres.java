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
 * A PostgreSQL server on this machine, started from the machine's server binaries by the
 * distribution's {@code bin/postgres-local.sh}, as a user starts one, with logical decoding on for
 * Debezium; statements run through {@code postgres-local.sh psql}.
 *
 * <p>Every server gets a directory of its own and a free port. {@link #close()} stops it by PID; a
 * JVM shutdown hook kills it if the test JVM ends without closing it.
 */
final class LocalPostgres implements AutoCloseable {

    private static final Duration SCRIPT_TIMEOUT = Duration.ofSeconds(120);
    private static final int START_ATTEMPTS = 3;

    private final Path directory;
    private final int port;
    private final Thread shutdownHook;

    private LocalPostgres(Path directory, int port, Thread shutdownHook) {
        this.directory = directory;
        this.port = port;
        this.shutdownHook = shutdownHook;
    }

    /**
     * Starts a server with {@code bin/postgres-local.sh start}, which returns once it accepts
     * connections. A port found free can be taken before the server binds it; a start that fails is
     * therefore tried again, in a new directory on a new port, a few times.
     */
    static LocalPostgres start() throws IOException {
        Path runs = DistributionScript.distribution().getParent().resolve("e2e-runs");
        Files.createDirectories(runs);
        for (int attempt = 1; ; attempt++) {
            Path directory = Files.createTempDirectory(runs, "postgres-");
            int port = FreePort.find();
            Thread shutdownHook = new Thread(() -> killServer(directory), "stop-local-postgres");
            Runtime.getRuntime().addShutdownHook(shutdownHook);
            try {
                DistributionScript.run(
                        directory.getParent(),
                        Map.of(
                                "POSTGRES_LOCAL_DIR",
                                directory.toString(),
                                "POSTGRES_PORT",
                                String.valueOf(port)),
                        SCRIPT_TIMEOUT,
                        null,
                        "postgres-local.sh",
                        "start");
                return new LocalPostgres(directory, port, shutdownHook);
            } catch (RuntimeException | Error e) {
                killServer(directory);
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
                if (attempt == START_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /** The port the server listens on, on localhost. */
    int port() {
        return port;
    }

    /** The directory the server was started with, as {@code POSTGRES_LOCAL_DIR}. */
    Path directory() {
        return directory;
    }

    /**
     * Runs SQL statements with {@code postgres-local.sh psql} as the superuser, stopping at the
     * first error (which fails the call); returns what psql printed.
     */
    String psql(String statements) {
        return script(statements, "psql");
    }

    /** Runs one query with psql and returns its result unaligned, without a header. */
    String query(String query) {
        return script(null, "psql", "--tuples-only", "--no-align", "--command=" + query).trim();
    }

    /**
     * Runs {@code bin/postgres-local.sh} with the arguments and the input against this server, as a
     * user would in the shell that started it; returns what it printed.
     */
    String script(String input, String... arguments) {
        String[] command = new String[arguments.length + 1];
        command[0] = "postgres-local.sh";
        System.arraycopy(arguments, 0, command, 1, arguments.length);
        return DistributionScript.run(
                directory.getParent(),
                Map.of("POSTGRES_LOCAL_DIR", directory.toString()),
                SCRIPT_TIMEOUT,
                input,
                command);
    }

    // ---- stopping ----

    @Override
    public void close() {
        try {
            script(null, "stop");
        } finally {
            killServer(directory);
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs or ran already
            }
        }
    }

    /**
     * The backstop: kills the server if it still runs, and only if the process is this server; its
     * other processes end when they find it gone.
     */
    private static void killServer(Path directory) {
        Path pidFile = directory.resolve("data").resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        String dataOption = "-D " + directory.resolve("data");
        try {
            String firstLine = Files.readAllLines(pidFile, StandardCharsets.UTF_8).get(0);
            Optional<ProcessHandle> process = ProcessHandle.of(Long.parseLong(firstLine.trim()));
            boolean ours =
                    process.filter(ProcessHandle::isAlive)
                            .flatMap(handle -> handle.info().commandLine())
                            .filter(line -> line.contains(dataOption))
                            .isPresent();
            if (ours) {
                process.get().destroyForcibly();
                process.get().onExit().orTimeout(30, TimeUnit.SECONDS).join();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
