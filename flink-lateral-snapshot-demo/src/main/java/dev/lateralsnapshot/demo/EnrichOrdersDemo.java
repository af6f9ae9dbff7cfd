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

package dev.lateralsnapshot.demo;

import dev.lateralsnapshot.LateralSnapshot;
import dev.lateralsnapshot.testutils.connectors.ChannelSource;
import dev.lateralsnapshot.testutils.connectors.CollectedRows;
import dev.lateralsnapshot.testutils.connectors.CollectingSink;
import dev.lateralsnapshot.testutils.connectors.ProbeChannel;
import dev.lateralsnapshot.testutils.metrics.JoinMetricsReporter;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.AVG_JOIN_FAN_OUT;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PROBE_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.LOAD_PHASE_DURATION_MS;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.MAX_JOIN_FAN_OUT;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_BUILD_SIDE_CHANGES_APPLIED;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_LATE_BUILD_SIDE_RECORDS;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_PROBE_SIDE_RECORDS_BUFFERED;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_STATE_TTL_EVICTIONS;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_BUILD_RETRACTIONS;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_PROBE_RECORDS;

/**
 * The scenario of the tutorial (docs/tutorial.md), on an embedded Flink 2.3.0 with the LATERAL
 * SNAPSHOT join installed: a customers table with a primary key, an orders table, the load phase,
 * the flip, a customer's upgrade that a later order picks up, and the join's metrics.
 *
 * <p>The tutorial's INSERT statements become rows the demo hands to two {@link ChannelSource}s
 * while the query runs: customers is a changelog (upserts by {@code customer_id}) with a watermark
 * on its event-time column {@code updated_at}, which the demo sets to the time it hands a row over,
 * as the tutorial's files carry the time they were written; orders is append-only. The idle timeout
 * is 5 seconds rather than the tutorial's ten, so the demo is quick.
 *
 * <p>Run it from the repository root:
 *
 * <pre>{@code
 * mvn -B -q -Pdemo -pl flink-lateral-snapshot-demo -am verify -DskipTests
 * }</pre>
 */
public final class EnrichOrdersDemo {

    private static final String QUERY =
            String.join(
                    "\n",
                    "SELECT o.order_id, o.customer_id, o.amount, c.tier, c.country",
                    "FROM orders AS o",
                    "LEFT JOIN LATERAL SNAPSHOT(",
                    "    input => TABLE customers,",
                    "    on_time => DESCRIPTOR(updated_at),",
                    "    load_completed_idle_timeout => INTERVAL '5' SECOND",
                    ") AS c",
                    "ON o.customer_id = c.customer_id");

    private static final TypeInformation<Row> CUSTOMER =
            Types.ROW_NAMED(
                    new String[] {"customer_id", "tier", "country", "updated_at"},
                    Types.INT,
                    Types.STRING,
                    Types.STRING,
                    Types.INSTANT);

    private static final TypeInformation<Row> ORDER =
            Types.ROW_NAMED(
                    new String[] {"order_id", "customer_id", "amount"},
                    Types.INT,
                    Types.INT,
                    Types.BIG_DEC);

    private static final String[] RESULT_COLUMNS = {
        "order_id", "customer_id", "amount", "tier", "country"
    };

    /** The join's metrics, in the order of docs/lateral-snapshot-join.md, section "Metrics". */
    private static final String[] METRICS = {
        CURRENT_PHASE,
        NUM_PROBE_SIDE_RECORDS_BUFFERED,
        NUM_UNMATCHED_PROBE_RECORDS,
        NUM_UNMATCHED_BUILD_RETRACTIONS,
        NUM_STATE_TTL_EVICTIONS,
        CURRENT_BUILD_SIDE_WATERMARK,
        CURRENT_PROBE_SIDE_WATERMARK,
        MAX_JOIN_FAN_OUT,
        AVG_JOIN_FAN_OUT,
        NUM_BUILD_SIDE_CHANGES_APPLIED,
        NUM_LATE_BUILD_SIDE_RECORDS,
        LOAD_PHASE_DURATION_MS
    };

    private static final int LINE_WIDTH = 100;

    /** Lines that follow a step start under its text, after the time. */
    private static final String INDENT = " ".repeat(10);

    /** How long the demo waits for any one step before it gives up. */
    private static final Duration STEP_LIMIT = Duration.ofSeconds(60);

    private final long startNanos = System.nanoTime();

    /** The enriched orders, as the job's sink receives them. */
    private final CollectedRows results = CollectedRows.open();

    /** How many of the results the demo has printed. */
    private int printed;

    private JobID jobId;

    /** The job's result: it fails when the job fails, and a step waits for nothing then. */
    private CompletableFuture<JobExecutionResult> job;

    public static void main(String[] args) throws Exception {
        new EnrichOrdersDemo().run();
    }

    private void run() throws Exception {
        Configuration configuration = new Configuration();
        // One subtask per operator: the feeds are single sources, and the tables stay readable.
        configuration.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        JoinMetricsReporter.configure(configuration);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(configuration);
        StreamTableEnvironment tableEnv = StreamTableEnvironment.create(env);
        LateralSnapshot.install(tableEnv);

        ProbeChannel customers = ProbeChannel.open(1);
        ProbeChannel orders = ProbeChannel.open(1);
        createTables(env, tableEnv, customers, orders);

        System.out.println();
        System.out.println(
                "LATERAL SNAPSHOT join demo: enrich orders with the current customer"
                        + " (Apache Flink 2.3.0, embedded)");
        System.out.println();
        // The customers watermark is their latest updated_at, so every row gets a time of its
        // own: a row with the time of a watermark already sent would be late, and the join would
        // apply it only at the next watermark advance.
        Instant loaded = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        customers.emit(
                Row.ofKind(RowKind.INSERT, 1, "gold", "US", loaded),
                Row.ofKind(RowKind.INSERT, 2, "silver", "UK", loaded.plusMillis(1)));
        System.out.println("Customers, the reference table (PRIMARY KEY customer_id):");
        System.out.println("  (1, gold, US) and (2, silver, UK), updated at " + loaded);
        System.out.println();
        System.out.println("The query:");
        System.out.println("  " + QUERY.replace("\n", "\n  "));
        System.out.println();

        step("Starting an embedded Flink cluster and the query ...");
        tableEnv.toDataStream(tableEnv.sqlQuery(QUERY)).sinkTo(CollectingSink.of(results));
        JobClient client = env.executeAsync("Enrich orders with LATERAL SNAPSHOT");
        jobId = client.getJobID();
        job = client.getJobExecutionResult();
        awaitStep("the join starts", () -> metric(CURRENT_PHASE) != null);
        step(
                "The join starts and reads the customers: it is loading (currentPhase = "
                        + metric(CURRENT_PHASE)
                        + ").");

        orders.emit(
                Row.of(101, 1, new BigDecimal("20.00")),
                Row.of(102, 2, new BigDecimal("35.50")),
                Row.of(103, 3, new BigDecimal("12.00")));
        awaitStep(
                "the join holds 3 orders", () -> longMetric(NUM_PROBE_SIDE_RECORDS_BUFFERED) == 3);
        step(
                "Orders 101, 102 and 103 arrive. The join holds them until it has loaded the"
                        + " customers (numProbeSideRecordsBuffered = 3).");

        List<Row> held = takeResults(3);
        step(
                "The customers watermark has not moved for 5 seconds: the join has finished"
                        + " loading (currentPhase = "
                        + metric(CURRENT_PHASE)
                        + ") and enriches the held orders at once:");
        printTable(held);
        note(
                "Order 103 is for a customer who isn't in the reference table. The LEFT JOIN keeps"
                        + " it and fills the customer columns with NULL.");

        Instant upgraded = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        customers.emit(Row.ofKind(RowKind.UPDATE_AFTER, 1, "platinum", "US", upgraded));
        step("Customer 1 moves up to the platinum tier: (1, platinum, US), updated at " + upgraded);
        awaitStep(
                "the customers watermark passes the upgrade",
                () -> longMetric(CURRENT_BUILD_SIDE_WATERMARK) >= upgraded.toEpochMilli());
        step(
                "The customers watermark has passed the upgrade, so the join has applied it"
                        + " (currentBuildSideWatermark = "
                        + Instant.ofEpochMilli(longMetric(CURRENT_BUILD_SIDE_WATERMARK))
                        + ").");

        orders.emit(Row.of(104, 1, new BigDecimal("50.00")));
        step("Order 104 arrives for customer 1 and picks up the new tier:");
        printTable(takeResults(1));
        note("Order 101 still shows gold: the join never revises an order it has emitted.");

        System.out.println("The join's metrics:");
        for (String name : METRICS) {
            System.out.printf("  %-30s %s%n", name, describe(name, metric(name)));
        }
        System.out.println();

        customers.end();
        orders.end();
        job.get(STEP_LIMIT.getSeconds(), TimeUnit.SECONDS);
        step("Both inputs have ended, and so has the job.");
    }

    /**
     * The tutorial's tables: customers, a changelog of upserts by customer with a watermark on its
     * event time, and orders, append-only.
     */
    private static void createTables(
            StreamExecutionEnvironment env,
            StreamTableEnvironment tableEnv,
            ProbeChannel customers,
            ProbeChannel orders) {
        tableEnv.createTemporaryView(
                "customers",
                tableEnv.fromChangelogStream(
                        env.fromSource(
                                ChannelSource.of(customers),
                                WatermarkStrategy.noWatermarks(),
                                "customers",
                                CUSTOMER),
                        Schema.newBuilder()
                                .column("customer_id", DataTypes.INT().notNull())
                                .column("tier", DataTypes.STRING())
                                .column("country", DataTypes.STRING())
                                .column("updated_at", DataTypes.TIMESTAMP_LTZ(3))
                                .watermark("updated_at", "updated_at")
                                .primaryKey("customer_id")
                                .build(),
                        ChangelogMode.upsert()));
        tableEnv.createTemporaryView(
                "orders",
                tableEnv.fromDataStream(
                        env.fromSource(
                                ChannelSource.of(orders),
                                WatermarkStrategy.noWatermarks(),
                                "orders",
                                ORDER),
                        Schema.newBuilder()
                                .column("order_id", DataTypes.INT())
                                .column("customer_id", DataTypes.INT())
                                .column("amount", DataTypes.DECIMAL(10, 2))
                                .build()));
    }

    // ---- steps ----

    /** Prints a step of the scenario, with the seconds since the demo started. */
    private void step(String text) {
        System.out.printf("[%5.1f s] %s%n", (System.nanoTime() - startNanos) / 1e9, wrap(text));
    }

    /** Prints a remark on the step before. */
    private static void note(String text) {
        System.out.println(INDENT + wrap(text));
        System.out.println();
    }

    /** Breaks a text into lines of at most {@link #LINE_WIDTH}, indented to follow a step. */
    private static String wrap(String text) {
        StringBuilder wrapped = new StringBuilder();
        int lineLength = INDENT.length();
        for (String word : text.split(" ")) {
            if (lineLength > INDENT.length() && lineLength + 1 + word.length() > LINE_WIDTH) {
                wrapped.append('\n').append(INDENT);
                lineLength = INDENT.length();
            } else if (lineLength > INDENT.length()) {
                wrapped.append(' ');
                lineLength++;
            }
            wrapped.append(word);
            lineLength += word.length();
        }
        return wrapped.toString();
    }

    private void awaitStep(String what, BooleanSupplier done) throws Exception {
        long deadline = System.nanoTime() + STEP_LIMIT.toNanos();
        while (!done.getAsBoolean()) {
            if (job.isDone()) {
                job.get();
                throw new IllegalStateException("The query ended before " + what);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "The demo waited " + STEP_LIMIT.getSeconds() + " s in vain until " + what);
            }
            Thread.sleep(20);
        }
    }

    private List<Row> takeResults(int count) throws Exception {
        awaitStep(count + " more enriched orders", () -> results.size() >= printed + count);
        List<Row> rows = results.received(printed);
        printed += rows.size();
        rows.sort(Comparator.comparing(row -> (Integer) row.getField(0)));
        return rows;
    }

    /** The current value of one of the join's metrics, or null before the join reports it. */
    private Object metric(String name) {
        return JoinMetricsReporter.current(jobId, name).get(0);
    }

    private long longMetric(String name) {
        Object value = metric(name);
        return value == null ? Long.MIN_VALUE : ((Number) value).longValue();
    }

    // ---- output ----

    /** A metric's value; a watermark also as a time, or as missing before the first one. */
    private static String describe(String name, Object value) {
        if (!name.endsWith("Watermark")) {
            return String.valueOf(value);
        }
        long watermark = ((Number) value).longValue();
        return watermark == Long.MIN_VALUE
                ? watermark + " (none: the orders carry no watermark)"
                : watermark + " (" + Instant.ofEpochMilli(watermark) + ")";
    }

    /** Prints rows as a table: a header, a rule, numbers right-aligned, text left-aligned. */
    private static void printTable(List<Row> rows) {
        int[] widths = new int[RESULT_COLUMNS.length];
        List<String[]> cells = new ArrayList<>();
        for (Row row : rows) {
            String[] values = new String[RESULT_COLUMNS.length];
            for (int i = 0; i < values.length; i++) {
                Object value = row.getField(i);
                values[i] = value == null ? "NULL" : value.toString();
            }
            cells.add(values);
        }
        for (int i = 0; i < widths.length; i++) {
            widths[i] = RESULT_COLUMNS[i].length();
            for (String[] values : cells) {
                widths[i] = Math.max(widths[i], values[i].length());
            }
        }
        System.out.println();
        printLine(RESULT_COLUMNS, widths, rows.isEmpty() ? null : rows.get(0), false);
        String[] rules = new String[widths.length];
        for (int i = 0; i < widths.length; i++) {
            rules[i] = "=".repeat(widths[i]);
        }
        printLine(rules, widths, null, false);
        for (int r = 0; r < rows.size(); r++) {
            printLine(cells.get(r), widths, rows.get(r), true);
        }
        System.out.println();
    }

    private static void printLine(String[] values, int[] widths, Row row, boolean alignNumbers) {
        StringBuilder line = new StringBuilder(INDENT);
        for (int i = 0; i < values.length; i++) {
            boolean number = alignNumbers && row != null && row.getField(i) instanceof Number;
            String format = number ? "%" + widths[i] + "s" : "%-" + widths[i] + "s";
            line.append(String.format(format, values[i]));
            if (i < values.length - 1) {
                line.append("  ");
            }
        }
        System.out.println(line.toString().stripTrailing());
    }
}
