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
import dev.lateralsnapshot.testutils.connectors.CollectedRows;
import dev.lateralsnapshot.testutils.connectors.CollectingTableFactory;
import dev.lateralsnapshot.testutils.connectors.ProbeChannel;
import dev.lateralsnapshot.testutils.connectors.ProbeTableFactory;
import dev.lateralsnapshot.testutils.metrics.JoinMetrics;
import dev.lateralsnapshot.testutils.metrics.JoinMetricsReporter;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.base.source.hybrid.HybridSource;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.reader.TextLineInputFormat;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.LOAD_COMPLETED_REASON;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_PROBE_SIDE_RECORDS_BUFFERED;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ORDERS_TIME_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A build side that reports its own backlog: a HybridSource that reads a bounded file of rates and
 * then monitors an empty directory. Flink's HybridSource reports a backlog until it starts its last
 * source, which it does once every reader has read the file to its end. With {@code
 * table.exec.lateral-snapshot.load-completed-on-caught-up} the join ends its load phase right then,
 * without an idle timeout and long before the load completed time, and every order finds the rate
 * of its currency in the whole file; without the option the join waits in the load phase.
 */
class HybridSourceBuildSideITCase extends MiniClusterTestBase {

    /** Currencies in the file, one rate each: more than one read could deliver at once. */
    private static final int CURRENCIES = 5_000;

    /** The update time of the first rate; each next rate is a millisecond later. */
    private static final LocalDateTime FIRST_UPDATE = LocalDateTime.of(2026, 1, 1, 0, 0);

    private static final String JOIN =
            "INSERT INTO enriched SELECT o.order_id, o.currency, r.rate FROM orders AS o"
                    + " JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                    + " on_time => DESCRIPTOR(update_time)) AS r ON o.currency = r.currency";

    @Test
    void theLoadPhaseEndsWhenTheHybridSourceStartsItsLastSource() throws Exception {
        try (Job job = start(true)) {
            job.emitOrders(CURRENCIES);

            job.awaitMetrics("both subtasks flip", m -> m.allEqual(CURRENT_PHASE, 1));
            assertThat(job.metrics().longs(LOAD_COMPLETED_REASON).values())
                    .as("the load phase ended with the build input's backlog")
                    .containsOnly(3L);
            assertThat(job.awaitOutput(CURRENCIES))
                    .as("every order finds its currency's rate: the whole file was loaded")
                    .containsExactlyInAnyOrderElementsOf(enrichedOrders());
        }
    }

    @Test
    void withoutTheOptionTheJoinWaitsInTheLoadPhase() throws Exception {
        try (Job job = start(false)) {
            job.emitOrders(CURRENCIES);

            long lastUpdate =
                    FIRST_UPDATE
                            .plusNanos((CURRENCIES - 1) * 1_000_000L)
                            .toInstant(ZoneOffset.UTC)
                            .toEpochMilli();
            job.awaitMetrics(
                    "the build watermark reaches the file's last rate and every order is buffered",
                    m ->
                            m.allEqual(CURRENT_BUILD_SIDE_WATERMARK, lastUpdate)
                                    && m.sum(NUM_PROBE_SIDE_RECORDS_BUFFERED) == CURRENCIES);
            // Long after the file was read and the backlog ended: nothing else ends the load.
            Thread.sleep(3_000);
            assertThat(job.metrics().longs(CURRENT_PHASE).values()).containsOnly(0L);
            assertThat(job.metrics().longs(LOAD_COMPLETED_REASON).values()).containsOnly(0L);
            assertThat(job.output.rows()).isEmpty();
        }
    }

    private Job start(boolean loadCompletedOnCaughtUp) throws Exception {
        java.nio.file.Path file = directory.resolve("rates.csv");
        Files.write(
                file,
                IntStream.range(0, CURRENCIES)
                        .mapToObj(
                                i ->
                                        "C"
                                                + i
                                                + ","
                                                + rate(i)
                                                + ","
                                                + FIRST_UPDATE.plusNanos(i * 1_000_000L))
                        .collect(Collectors.toList()));
        java.nio.file.Path later = Files.createDirectory(directory.resolve("later"));

        StreamExecutionEnvironment streams = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment env = StreamTableEnvironment.create(streams);
        env.getConfig().set("table.local-time-zone", "UTC");
        env.getConfig().set("parallelism.default", String.valueOf(StreamingScenario.PARALLELISM));
        // The file is one split: the other reader has nothing, and its watermark idles.
        env.getConfig().set("table.exec.source.idle-timeout", "500 ms");
        env.getConfig()
                .set(
                        "table.exec.lateral-snapshot.load-completed-on-caught-up",
                        String.valueOf(loadCompletedOnCaughtUp));
        LateralSnapshot.install(env);

        HybridSource<String> rates =
                HybridSource.builder(
                                FileSource.forRecordStreamFormat(
                                                new TextLineInputFormat(), new Path(file.toUri()))
                                        .build())
                        .addSource(
                                FileSource.forRecordStreamFormat(
                                                new TextLineInputFormat(), new Path(later.toUri()))
                                        .monitorContinuously(Duration.ofMillis(100))
                                        .build())
                        .build();
        DataStream<Row> rateRows =
                streams.fromSource(rates, WatermarkStrategy.noWatermarks(), "rates", Types.STRING)
                        .map(HybridSourceBuildSideITCase::rateRow)
                        .returns(
                                Types.ROW_NAMED(
                                        new String[] {"currency", "rate", "update_time"},
                                        Types.STRING,
                                        Types.DOUBLE,
                                        Types.LOCAL_DATE_TIME));
        env.createTemporaryView(
                "rates",
                env.fromDataStream(
                        rateRows,
                        Schema.newBuilder()
                                .column("currency", DataTypes.STRING())
                                .column("rate", DataTypes.DOUBLE())
                                .column("update_time", DataTypes.TIMESTAMP(3))
                                .watermark("update_time", "update_time")
                                .build()));

        ProbeChannel orders = ProbeChannel.open(StreamingScenario.PARALLELISM);
        CollectedRows output = CollectedRows.open();
        env.executeSql(
                createTable(
                        "orders",
                        "order_id BIGINT, currency AS 'C' || CAST(order_id AS STRING), "
                                + ORDERS_TIME_COLUMNS,
                        ProbeTableFactory.options(orders)));
        env.executeSql(
                createTable(
                        "enriched",
                        "order_id BIGINT, currency STRING, rate DOUBLE",
                        CollectingTableFactory.options(output)));
        JobClient client = env.executeSql(JOIN).getJobClient().orElseThrow();
        Await.until(
                "all tasks run",
                () ->
                        StreamingScenario.allTasksRunning(
                                cluster().getExecutionGraph(client.getJobID()).get()),
                () -> client.getJobStatus().join());
        return new Job(client, orders, output);
    }

    private static Row rateRow(String line) {
        String[] fields = line.split(",");
        return Row.of(fields[0], Double.parseDouble(fields[1]), LocalDateTime.parse(fields[2]));
    }

    private static double rate(int currency) {
        return currency + 0.5;
    }

    private static List<String> enrichedOrders() {
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < CURRENCIES; i++) {
            rows.add("+I[" + i + ", C" + i + ", " + rate(i) + "]");
        }
        return rows;
    }

    /** The running join, its orders and its output; closing it cancels the job. */
    private static final class Job implements AutoCloseable {

        private final JobClient client;
        private final ProbeChannel orders;
        private final CollectedRows output;

        Job(JobClient client, ProbeChannel orders, CollectedRows output) {
            this.client = client;
            this.orders = orders;
            this.output = output;
        }

        /** Orders 0 to count - 1, one of each currency. */
        void emitOrders(int count) {
            orders.emit(LongStream.range(0, count).mapToObj(Row::of).toArray(Row[]::new));
        }

        JoinMetrics metrics() {
            return JoinMetricsReporter.of(client.getJobID());
        }

        void awaitMetrics(String awaited, Predicate<JoinMetrics> condition) throws Exception {
            Await.until(awaited, () -> condition.test(metrics()), this::metrics);
        }

        List<String> awaitOutput(int rows) throws Exception {
            Await.until(rows + " output rows", () -> output.size() >= rows, output::rows);
            return output.rows();
        }

        @Override
        public void close() throws Exception {
            try {
                client.cancel().get();
            } finally {
                orders.close();
                output.close();
            }
        }
    }
}
