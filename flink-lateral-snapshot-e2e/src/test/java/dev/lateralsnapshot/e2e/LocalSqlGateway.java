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
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Flink's SQL Gateway for a {@link LocalFlinkCluster}, started as a user starts it: with the
 * distribution's {@code bin/sql-gateway.sh start}, in a JVM of its own, with the cluster's
 * configuration and the drop-in jar's planner, its REST endpoint on a free port (given to the
 * script as {@code -Dsql-gateway.endpoint.rest.port}). {@link #close()} stops it with {@code
 * sql-gateway.sh stop}, which stops it by the PID that {@code start} wrote, and kills it by that
 * PID if it still runs; a JVM shutdown hook does the same if the test JVM ends without closing it.
 */
final class LocalSqlGateway implements AutoCloseable {

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);

    /** How long the gateway's process may be missing before the start counts as failed. */
    private static final Duration EXITED = Duration.ofSeconds(5);

    /** The main class, to tell the gateway from any other process with a reused PID. */
    private static final String MAIN_CLASS = "org.apache.flink.table.gateway.SqlGateway";

    private final LocalFlinkCluster cluster;
    private final int port;
    private final RestApi rest;
    private final Thread shutdownHook;

    private LocalSqlGateway(LocalFlinkCluster cluster, int port) {
        this.cluster = cluster;
        this.port = port;
        this.rest = new RestApi("http://localhost:" + port);
        this.shutdownHook = new Thread(this::kill, "stop-local-sql-gateway");
    }

    /** Starts the gateway and waits until its REST endpoint answers. */
    static LocalSqlGateway start(LocalFlinkCluster cluster) throws IOException {
        LocalSqlGateway gateway = new LocalSqlGateway(cluster, FreePort.find());
        Runtime.getRuntime().addShutdownHook(gateway.shutdownHook);
        long[] missingSince = {0};
        try {
            cluster.script(
                    "sql-gateway.sh", "start", "-Dsql-gateway.endpoint.rest.port=" + gateway.port);
            Wait.until(
                    STARTUP_TIMEOUT,
                    "the SQL Gateway answering on port "
                            + gateway.port
                            + " (log in "
                            + cluster.logDirectory()
                            + ")",
                    () -> {
                        // Right after the script returns, the PID it wrote may still be the
                        // shell that goes on to run the JVM: only a gateway missing for a while
                        // has exited.
                        if (gateway.pids().isEmpty()) {
                            missingSince[0] =
                                    missingSince[0] == 0 ? System.nanoTime() : missingSince[0];
                            if (System.nanoTime() - missingSince[0] > EXITED.toNanos()) {
                                throw new AssertionError(
                                        "The SQL Gateway exited during the start; log in "
                                                + cluster.logDirectory());
                            }
                            return false;
                        }
                        missingSince[0] = 0;
                        return gateway.rest.tryGet("/v1/info").isPresent();
                    });
        } catch (RuntimeException | Error e) {
            gateway.close();
            throw e;
        }
        return gateway;
    }

    /** The URL that Flink's JDBC driver connects to, as a JDBC tool is configured with it. */
    String jdbcUrl() {
        return "jdbc:flink://localhost:" + port;
    }

    /** The gateway's own REST API (sessions, operations), which the driver talks to. */
    RestApi rest() {
        return rest;
    }

    /** The PIDs of the running gateways that {@code sql-gateway.sh start} started. */
    List<Long> pids() {
        return cluster.processes(List.of(MAIN_CLASS)).stream()
                .map(ProcessHandle::pid)
                .collect(Collectors.toList());
    }

    @Override
    public void close() {
        try {
            cluster.script("sql-gateway.sh", "stop");
        } finally {
            kill();
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs or ran already
            }
        }
    }

    /** The backstop: kills what the script did not stop, only a process that is ours. */
    private void kill() {
        cluster.processes(List.of(MAIN_CLASS)).forEach(ProcessHandle::destroyForcibly);
    }
}
