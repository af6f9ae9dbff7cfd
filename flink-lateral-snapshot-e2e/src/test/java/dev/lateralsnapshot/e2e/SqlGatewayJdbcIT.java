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

import dev.lateralsnapshot.testutils.connectors.Directories;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static dev.lateralsnapshot.testutils.tables.RateChanges.FILE_001;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ENRICHED_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.currency;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flink's SQL Gateway with Flink's JDBC driver, as DBeaver and other JDBC tools use them
 * (docs/operations.md, "JDBC tools and the REST API"): {@code bin/sql-gateway.sh} starts the
 * gateway against a local cluster of the assembled distribution, and through the driver the test
 * creates the tables, explains a LATERAL SNAPSHOT join, submits it with {@code INSERT}, and, after
 * a stop with a savepoint through the cluster's REST API, restores the same statement with {@code
 * SET 'execution.savepoint.path'}; and through the gateway's own REST API, as a notebook without a
 * driver, it explains the join.
 *
 * <p>The orders are files dropped into a directory that the probe side monitors, twenty before the
 * savepoint and twenty after it, without a watermark; the sink is a directory of files that Flink
 * commits on checkpoints and on the savepoint, read back at the end: every order once, with the
 * rate of its currency (none for C: a LEFT JOIN). The tables are created again in the second
 * session, as a JDBC tool runs its script again: a session's tables end with it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqlGatewayJdbcIT {

    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(60);

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The rates of {@code 001.json}; C has none. */
    private static final Map<String, String> RATES = Map.of("A", "1.0", "B", "2.0", "C", "");

    private static final String INSERT =
            "INSERT INTO enriched\n"
                    + "SELECT o.order_id, o.currency, r.rate\n"
                    + "FROM orders AS o\n"
                    + "LEFT JOIN LATERAL SNAPSHOT(\n"
                    + "    input => TABLE rates,\n"
                    + "    on_time => DESCRIPTOR(update_time),\n"
                    + "    load_completed_idle_timeout => INTERVAL '2' SECOND\n"
                    + ") AS r\n"
                    + "ON o.currency = r.currency";

    private LocalFlinkCluster cluster;
    private LocalSqlGateway gateway;
    private Path buildDirectory;
    private Path ordersDirectory;
    private Path outputDirectory;

    @BeforeAll
    void startClusterAndGateway() throws IOException {
        // Checkpoints, which commit the sink's files, every 2 s instead of 10 s.
        cluster = LocalFlinkCluster.start(Map.of("execution.checkpointing.interval", "2s"));
        Path run = cluster.runDirectory();
        buildDirectory = Files.createDirectories(run.resolve("build"));
        ordersDirectory = Files.createDirectories(run.resolve("orders"));
        outputDirectory = Files.createDirectories(run.resolve("enriched"));
        gateway = LocalSqlGateway.start(cluster);
    }

    @AfterAll
    void stopGatewayAndCluster() {
        try {
            if (gateway != null) {
                gateway.close();
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    @Test
    void ddlExplainInsertStopWithSavepointAndRestoreThroughJdbc() throws Exception {
        assertThat(gateway.rest().get("/v1/info").path("version").asText()).isEqualTo("2.3.0");
        Directories.writeAtomically(buildDirectory, "001.json", FILE_001);
        writeOrders("orders-1.csv", 1, 20);

        String jobId;
        try (Connection connection = DriverManager.getConnection(gateway.jdbcUrl());
                Statement statement = connection.createStatement()) {
            for (String ddl : ddl()) {
                assertThat(statement.execute(ddl)).as("%s returns no rows", ddl).isFalse();
            }
            List<String> explained = firstColumn(statement, "EXPLAIN " + INSERT);
            assertThat(explained).hasSize(1);
            assertThat(explained.get(0))
                    .contains(
                            "LateralSnapshotJoin(joinType=[LeftOuterJoin]",
                            "load_completed_idle_timeout=[2 s]");
            jobId = firstColumn(statement, INSERT).get(0);
        }
        ClusterJob job = new ClusterJob(cluster.rest(), jobId).awaitRunning();
        awaitCommittedOrders(20);

        String savepoint = cluster.rest().stopWithSavepoint(jobId, JOB_TIMEOUT);
        Wait.until(JOB_TIMEOUT, "job " + jobId + " FINISHED", () -> job.state().equals("FINISHED"));
        writeOrders("orders-2.csv", 21, 40);

        String restoredId;
        try (Connection connection = DriverManager.getConnection(gateway.jdbcUrl());
                Statement statement = connection.createStatement()) {
            for (String ddl : ddl()) {
                statement.execute(ddl);
            }
            statement.execute("SET 'execution.savepoint.path' = '" + savepoint + "'");
            restoredId = firstColumn(statement, INSERT).get(0);
            statement.execute("RESET 'execution.savepoint.path'");
        }
        new ClusterJob(cluster.rest(), restoredId).awaitRunning();
        assertThat(
                        cluster.rest()
                                .get("/jobs/" + restoredId + "/checkpoints")
                                .path("latest")
                                .path("restored")
                                .path("external_path")
                                .asText())
                .as("the restored job's savepoint")
                .isEqualTo(savepoint);

        List<String> committed = awaitCommittedOrders(40);
        assertThat(committed)
                .as("every order once, with the rate of its currency")
                .containsExactlyInAnyOrderElementsOf(
                        LongStream.rangeClosed(1, 40)
                                .mapToObj(
                                        id ->
                                                id
                                                        + ","
                                                        + currency(id)
                                                        + ","
                                                        + RATES.get(currency(id)))
                                .collect(Collectors.toList()));
        cluster.rest().cancel(restoredId);
    }

    /**
     * The gateway's own REST API, as a notebook uses it without a driver: a session, the tables,
     * and the plan of the join, fetched as the statement's result.
     */
    @Test
    void explainThroughTheGatewaysRestApi() {
        RestApi rest = gateway.rest();
        String session = rest.post("/v1/sessions", "{}", 200).path("sessionHandle").asText();
        for (String ddl : ddl()) {
            statementResult(session, ddl);
        }
        JsonNode plan = statementResult(session, "EXPLAIN " + INSERT);
        assertThat(plan.path("results").path("data").get(0).path("fields").get(0).asText())
                .contains("LateralSnapshotJoin(joinType=[LeftOuterJoin]");
    }

    /**
     * Submits a statement in a session of the gateway's REST API and fetches the first page of its
     * result once it is there.
     */
    private JsonNode statementResult(String session, String statement) {
        RestApi rest = gateway.rest();
        String operation =
                rest.post(
                                "/v1/sessions/" + session + "/statements",
                                JSON.createObjectNode().put("statement", statement).toString(),
                                200)
                        .path("operationHandle")
                        .asText();
        return Wait.until(
                JOB_TIMEOUT,
                "the result of " + statement,
                () ->
                        rest.get(
                                "/v1/sessions/"
                                        + session
                                        + "/operations/"
                                        + operation
                                        + "/result/0"),
                result -> !result.path("resultType").asText().equals("NOT_READY"));
    }

    /** The tables, created in each new session of the gateway as a JDBC tool runs a script. */
    private List<String> ddl() {
        return List.of(
                createTable(
                        "rates",
                        RATES_COLUMNS,
                        Directories.filesystem(buildDirectory, "debezium-json")
                                + ", 'source.monitor-interval' = '1s'"),
                createTable(
                        "orders",
                        "order_id BIGINT, currency STRING",
                        Directories.filesystem(ordersDirectory, "csv")
                                + ", 'source.monitor-interval' = '1s'"),
                createTable(
                        "enriched",
                        ENRICHED_COLUMNS,
                        Directories.filesystem(outputDirectory, "csv")
                                + ", 'sink.rolling-policy.rollover-interval' = '1s'"
                                + ", 'sink.rolling-policy.check-interval' = '1s'"));
    }

    /** Runs a statement that returns rows and returns their first column. */
    private static List<String> firstColumn(Statement statement, String sql) throws SQLException {
        assertThat(statement.execute(sql)).as("%s returns rows", sql).isTrue();
        List<String> values = new ArrayList<>();
        try (ResultSet rows = statement.getResultSet()) {
            while (rows.next()) {
                values.add(rows.getString(1));
            }
        }
        return values;
    }

    /** Drops a file of orders, whole, into the directory of the probe side. */
    private void writeOrders(String name, long first, long last) {
        Directories.writeAtomically(
                ordersDirectory,
                name,
                LongStream.rangeClosed(first, last)
                        .mapToObj(id -> id + "," + currency(id))
                        .collect(Collectors.toList()));
    }

    /** Waits until the sink's committed files hold this many rows and returns them. */
    private List<String> awaitCommittedOrders(int count) {
        return Wait.until(
                JOB_TIMEOUT,
                count + " committed rows in " + outputDirectory,
                () -> Directories.committedLines(outputDirectory),
                rows -> rows.size() >= count);
    }
}
