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

import dev.lateralsnapshot.LateralSnapshot;
import dev.lateralsnapshot.planner.delegation.LateralSnapshotPlannerFactory;
import dev.lateralsnapshot.testutils.connectors.CollectedRows;
import dev.lateralsnapshot.testutils.connectors.CollectingTableFactory;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.MiniClusters;
import dev.lateralsnapshot.testutils.environments.StateBackendKind;
import dev.lateralsnapshot.testutils.environments.TableEnvironments;

import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_ORDERS_CSV;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_RATES_CSV;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ENRICHED_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;

/**
 * The MiniCluster of a test class, which the extension starts before the class and stops after it:
 * two slots for parallelism 2, little memory, and the reporter that keeps the join's metrics.
 *
 * <p>For the tests that run a statement over bounded files to its end, it also writes those files
 * ({@link #writeBoundedInput}), creates the tables over them ({@link #boundedInputTables}) and
 * closes the collections of their sinks after each test ({@link #collection}); for batch mode it
 * writes the tables of the reference's batch example ({@link #batchEnvironment}). {@link #rows}
 * runs a query to its end.
 */
public abstract class MiniClusterTestBase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            MiniClusters.extension(StreamingScenario.PARALLELISM);

    @TempDir protected Path directory;

    private MiniCluster cluster;

    private final List<CollectedRows> collections = new ArrayList<>();

    private Path rates;
    private Path orders;

    @BeforeEach
    void injectCluster(@InjectMiniCluster MiniCluster cluster) {
        this.cluster = cluster;
    }

    @AfterEach
    void closeCollections() {
        collections.forEach(CollectedRows::close);
    }

    /** This class's cluster. */
    protected MiniCluster cluster() {
        return cluster;
    }

    /** A streaming scenario on this class's cluster; close it to stop its job. */
    StreamingScenario scenario(StateBackendKind backend) throws IOException {
        return StreamingScenario.create(cluster, backend, directory);
    }

    /** A new collection for a sink, closed after the test. */
    protected CollectedRows collection() {
        CollectedRows rows = CollectedRows.open();
        collections.add(rows);
        return rows;
    }

    /**
     * Writes the bounded input under this test's directory: the build side's changes in one file,
     * so that one source subtask reads them in their order, and the orders 1 to {@code orders}.
     */
    protected void writeBoundedInput(List<String> rateChanges, long orders) throws IOException {
        this.rates = Files.createDirectories(directory.resolve("rates"));
        this.orders = Files.createDirectories(directory.resolve("orders"));
        Files.write(rates.resolve("rates.json"), rateChanges);
        Files.write(
                this.orders.resolve("orders.csv"),
                LongStream.rangeClosed(1, orders).mapToObj(Long::toString).toList());
    }

    /**
     * Creates the tables over the {@link #writeBoundedInput bounded input} in the environment,
     * whose sink {@code enriched} writes to the collection, and returns the environment.
     */
    protected TableEnvironment boundedInputTables(TableEnvironment env, CollectedRows sink) {
        env.executeSql(
                createTable(
                        "rates", RATES_COLUMNS, Directories.filesystem(rates, "debezium-json")));
        env.executeSql(
                createTable("orders", ORDERS_COLUMNS, Directories.filesystem(orders, "csv")));
        env.executeSql(
                createTable("enriched", ENRICHED_COLUMNS, CollectingTableFactory.options(sink)));
        return env;
    }

    /**
     * A batch environment at parallelism 2 on the backend, with the join installed and the tables
     * {@code orders_b} and {@code rates_b} of the reference's batch example (section 8 of the
     * release-testing plan) over their rows, written under this test's directory.
     */
    protected TableEnvironment batchEnvironment(StateBackendKind backend) throws IOException {
        Path orders = Files.createDirectories(directory.resolve("orders_b"));
        Path rates = Files.createDirectories(directory.resolve("rates_b"));
        Files.write(orders.resolve("o.csv"), BATCH_ORDERS_CSV);
        Files.write(rates.resolve("r.csv"), BATCH_RATES_CSV);

        TableEnvironment env = TableEnvironments.batch();
        env.getConfig().set("parallelism.default", String.valueOf(StreamingScenario.PARALLELISM));
        env.getConfig().set("state.backend.type", backend.type);
        LateralSnapshot.install(env);
        env.executeSql(
                createTable(
                        "orders_b", BATCH_ORDERS_COLUMNS, Directories.filesystem(orders, "csv")));
        env.executeSql(
                createTable("rates_b", BATCH_RATES_COLUMNS, Directories.filesystem(rates, "csv")));
        return env;
    }

    /** Runs the table's query to its end and returns its rows as strings, in arrival order. */
    protected static List<String> rows(Table table) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> result = table.execute().collect()) {
            result.forEachRemaining(row -> rows.add(row.toString()));
        }
        return rows;
    }

    /**
     * A streaming environment for the bounded input, without the idle-source timeout of the other
     * streaming tests: a source subtask without a file ends at once with the final watermark, and
     * were the subtask that reads the build file marked idle before its first row (a busy machine),
     * the join would flip with an empty build side and the rows would depend on timing.
     */
    public static TableEnvironment boundedInputEnvironment(StateBackendKind backend) {
        TableEnvironment env = streamingEnvironment(backend, StreamingScenario.PARALLELISM);
        env.getConfig().set("table.exec.source.idle-timeout", "0 ms");
        return env;
    }

    /** An environment of the drop-in jar's planner for the bounded input, as the one above. */
    public static TableEnvironment boundedDropInEnvironment(StateBackendKind backend) {
        TableEnvironment env = dropInEnvironment(backend, StreamingScenario.PARALLELISM);
        env.getConfig().set("table.exec.source.idle-timeout", "0 ms");
        return env;
    }

    /**
     * A streaming environment with the join installed, for jobs at a parallelism on a state
     * backend, in UTC.
     */
    public static TableEnvironment streamingEnvironment(StateBackendKind backend, int parallelism) {
        TableEnvironment env = TableEnvironments.streamingJobs(backend, parallelism);
        LateralSnapshot.install(env);
        return env;
    }

    /**
     * A streaming environment as {@link #streamingEnvironment}, whose planner the drop-in jar's
     * planner factory created: it has the join without {@code install} and fuses the projection
     * after a join into the join's operator.
     */
    public static TableEnvironment dropInEnvironment(StateBackendKind backend, int parallelism) {
        return TableEnvironments.streamingJobs(
                LateralSnapshotPlannerFactory.class.getName(), backend, parallelism);
    }
}
