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

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.EQUI;
import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.FILE_001_PAST_LOAD_COMPLETION;
import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.IDLE_TIMEOUT;
import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.LOAD_COMPLETED_TIME;
import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.insert;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PROBE_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.MAX_JOIN_FAN_OUT;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_PROBE_SIDE_RECORDS_BUFFERED;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_BUILD_RETRACTIONS;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_PROBE_RECORDS;
import static dev.lateralsnapshot.testutils.tables.RateChanges.FILE_001;
import static dev.lateralsnapshot.testutils.tables.RateChanges.FILE_003;
import static dev.lateralsnapshot.testutils.tables.RateChanges.WATERMARK_OF_001;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.currency;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The join against a real local cluster: one cluster per test class, started from the assembled
 * distribution with the drop-in jar in {@code lib/}; jobs submitted through Flink's SQL Client with
 * {@code -i ddl.sql} and {@code -f}; results read from the {@code print} sink in the TaskManagers'
 * {@code .out} files; metrics read from the REST API.
 *
 * <p>Each test starts with no job running and an empty build directory. Waits that the checks do
 * not depend on are short (for example a handful of buffered orders before a savepoint), and
 * metrics are fetched every second instead of every ten.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ReleaseTestingPlanTestBase {

    /** Long.MIN_VALUE as the REST API reports it: a double. */
    static final double NO_WATERMARK = (double) Long.MIN_VALUE;

    static final Duration FLIP_TIMEOUT = Duration.ofSeconds(60);
    static final Duration OUTPUT_TIMEOUT = Duration.ofSeconds(30);

    /** Long enough for a metric change to reach the REST API (fetched every second here). */
    static final Duration METRIC_REFRESH = Duration.ofSeconds(3);

    private static final Pattern SAVEPOINT_PATH =
            Pattern.compile("Savepoint completed\\. Path: (\\S+)");

    LocalFlinkCluster cluster;
    PrintSinkOutput output;
    Path buildDirectory;
    Path ddl;
    private int scripts;

    /** Options of this class's cluster, on top of the distribution's configuration. */
    abstract Map<String, String> clusterOptions();

    @BeforeAll
    void startCluster() throws IOException {
        // The distribution's configuration (the README's "A local Flink 2.3.0 cluster"): 4 slots
        // per TaskManager, a checkpoint every 10 s; the cluster has its own checkpoint directories.
        Map<String, String> options = new HashMap<>(clusterOptions());
        // Metric values on the REST API refresh every 10 s by default; the tests do not wait that
        // long.
        options.put("metrics.fetcher.update-interval", "1000");
        cluster = LocalFlinkCluster.start(options);
        output = new PrintSinkOutput(cluster);
        buildDirectory = Files.createDirectories(cluster.runDirectory().resolve("build"));
        ddl = cluster.runDirectory().resolve("ddl.sql");
        Files.writeString(ddl, ReleaseTestingPlan.ddl(buildDirectory));
    }

    /** Cancels every job and empties the build directory, so that the next test starts afresh. */
    @AfterEach
    void cancelJobsAndEmptyBuildDirectory() {
        for (String jobId : cluster.rest().unfinishedJobIds()) {
            cluster.rest().cancel(jobId);
        }
        Wait.until(
                Duration.ofSeconds(60),
                "every job cancelled",
                () -> cluster.rest().unfinishedJobIds().isEmpty());
        try (Stream<Path> files = Files.list(buildDirectory)) {
            for (Path file : files.collect(Collectors.toList())) {
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterAll
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    // ---- what every cluster configuration runs ----

    /**
     * The load phase buffers orders until the build watermark has been idle for 10 s, then the join
     * flips and prints every buffered order at once. Returns the running job.
     */
    ClusterJob loadPhaseAndFlipViaIdleTimeout() {
        return loadPhaseAndFlipViaIdleTimeout(insert("JOIN", EQUI, IDLE_TIMEOUT));
    }

    /**
     * {@link #loadPhaseAndFlipViaIdleTimeout()} for statements that submit its {@code INSERT}, or
     * the plan compiled from it.
     */
    ClusterJob loadPhaseAndFlipViaIdleTimeout(String statements) {
        PrintSinkOutput.Mark start = output.mark();
        ClusterJob job = submit(statements);

        // Before the file is written: load phase, about one more buffered order per second.
        double buffered =
                job.awaitMetric(
                        NUM_PROBE_SIDE_RECORDS_BUFFERED, Duration.ofSeconds(30), n -> n >= 2);
        job.awaitMetric(NUM_PROBE_SIDE_RECORDS_BUFFERED, Duration.ofSeconds(30), n -> n > buffered);
        assertThat(job.metricValue(CURRENT_PHASE)).isZero();
        assertThat(output.rowsSince(start)).as("nothing printed in the load phase").isEmpty();

        long written = System.nanoTime();
        writeBuildFile("001.json", FILE_001);
        awaitBuildWatermark(job, WATERMARK_OF_001);
        assertThat(job.metricValue(CURRENT_PHASE))
                .as("still loading: the build watermark has just advanced")
                .isZero();

        job.awaitMetric(CURRENT_PHASE, FLIP_TIMEOUT, phase -> phase == 1);
        assertThat(Duration.ofNanos(System.nanoTime() - written))
                .as("the flip comes 10 s after the last build watermark advance, not earlier")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(10));
        job.awaitMetric(
                NUM_PROBE_SIDE_RECORDS_BUFFERED, METRIC_REFRESH.multipliedBy(2), n -> n == 0);

        // All buffered orders at once: A with 1.0, B with 2.0, no C (inner join); then new orders.
        List<PrintedRow> rows = awaitRowsAfterFlip(start);
        assertMatchedOrders(rows, 1, lastOrderId(rows), Map.of("A", 1.0, "B", 2.0));

        // Every C order up to the last printed one was dropped and counted.
        long droppedC = countOrders(1, lastOrderId(rows) - 1, "C");
        job.awaitMetric(
                NUM_UNMATCHED_PROBE_RECORDS, METRIC_REFRESH.multipliedBy(2), n -> n >= droppedC);
        assertThat(job.metricValue(CURRENT_BUILD_SIDE_WATERMARK))
                .isEqualTo((double) WATERMARK_OF_001);
        assertThat(job.metricValue(CURRENT_PROBE_SIDE_WATERMARK))
                .as("close to the current time in epoch milliseconds")
                .isBetween(System.currentTimeMillis() - 60_000d, System.currentTimeMillis() + 0d);
        assertThat(job.metricValue(MAX_JOIN_FAN_OUT)).isEqualTo(1.0);
        return job;
    }

    /**
     * A LEFT JOIN prints C orders with a NULL rate; then an update of A, a delete of B and an
     * insert of C become visible together, and nothing printed before changes.
     */
    void buildSideUpdatesDeletesAndLeftJoin() {
        PrintSinkOutput.Mark start = output.mark();
        ClusterJob job = submit(insert("LEFT JOIN", EQUI, IDLE_TIMEOUT));
        writeBuildFile("001.json", FILE_001);
        job.awaitMetric(CURRENT_PHASE, FLIP_TIMEOUT, phase -> phase == 1);
        Map<String, Double> before = rates("A", 1.0, "B", 2.0, "C", null);
        List<PrintedRow> flipped = awaitRowsAfterFlip(start);
        assertMatchedOrders(flipped, 1, lastOrderId(flipped), before);

        writeBuildFile("003.json", FILE_003);
        Map<String, Double> after = rates("A", 1.5, "B", null, "C", 3.0);
        List<PrintedRow> rows =
                output.awaitRowsSince(
                        start,
                        OUTPUT_TIMEOUT,
                        "three orders of each currency after the update",
                        printed -> countMatching(printed, after) >= 9);

        // One switch point for all three changes: every order before it sees the old build side,
        // every order after it the new one, none a mix (the update is applied atomically).
        long firstNew =
                rows.stream()
                        .filter(row -> matches(row, after))
                        .mapToLong(PrintedRow::orderId)
                        .min()
                        .getAsLong();
        for (PrintedRow row : rows) {
            assertThat(row.kind()).as("append-only output").isEqualTo("+I");
            assertThat(matches(row, row.orderId() < firstNew ? before : after))
                    .as("%s against the switch at order %s", row, firstNew)
                    .isTrue();
        }
        assertMatchedOrders(rows, 1, lastOrderId(rows), null);

        Wait.sleep(METRIC_REFRESH);
        assertThat(job.metricValue(NUM_UNMATCHED_BUILD_RETRACTIONS)).isZero();
        // numUnmatchedProbeRecords counts probe rows without a match for LEFT joins too, the
        // null-padded ones (docs/lateral-snapshot-join.md, "Metrics"; Flink 2.4 counts them
        // otherwise, see "This library and Flink 2.4"): every one printed so far is counted.
        long nullPadded = rows.stream().filter(row -> row.rate() == null).count();
        assertThat(nullPadded).isPositive();
        job.awaitMetric(
                NUM_UNMATCHED_PROBE_RECORDS, METRIC_REFRESH.multipliedBy(2), n -> n >= nullPadded);
    }

    /**
     * A savepoint in the join phase: stop the running job with a savepoint and restore it; it is in
     * the join phase at once and still matches A and B, with fresh metrics. The job has no state
     * TTL.
     */
    void savepointAndRestoreInJoinPhase(ClusterJob job, String insert) {
        double unmatchedBeforeStop = job.metricValue(NUM_UNMATCHED_PROBE_RECORDS);
        String savepoint = stopWithSavepoint(cluster, job);

        PrintSinkOutput.Mark restart = output.mark();
        ClusterJob restored = submitRestoring(savepoint, insert);
        assertThat(restored.metricValue(CURRENT_PHASE)).as("join phase right away").isEqualTo(1.0);
        List<PrintedRow> rows =
                output.awaitRowsSince(
                        restart,
                        OUTPUT_TIMEOUT,
                        "A and B orders after the restore",
                        printed ->
                                countOrders(printed, "A") >= 2 && countOrders(printed, "B") >= 2);
        assertMatchedOrders(
                rows, firstOrderId(rows), lastOrderId(rows), Map.of("A", 1.0, "B", 2.0));

        // Metrics are not restored: counters start at 0, no build watermark yet.
        assertThat(restored.metricValue(NUM_UNMATCHED_PROBE_RECORDS))
                .isLessThan(unmatchedBeforeStop);
        assertThat(restored.metricValue(CURRENT_BUILD_SIDE_WATERMARK)).isEqualTo(NO_WATERMARK);
    }

    /**
     * A savepoint in the load phase: orders buffered before a savepoint survive it and are printed
     * at the flip after the restore.
     */
    void savepointAndRestoreInLoadPhase() {
        String insert = insert("JOIN", EQUI, LOAD_COMPLETED_TIME);
        PrintSinkOutput.Mark start = output.mark();
        ClusterJob job = submit(insert);
        // A handful of buffered orders proves the point.
        long buffered =
                (long)
                        job.awaitMetric(
                                NUM_PROBE_SIDE_RECORDS_BUFFERED,
                                Duration.ofSeconds(30),
                                n -> n >= 6);
        String savepoint = stopWithSavepoint(cluster, job);

        ClusterJob restored = submitRestoring(savepoint, insert);
        assertThat(restored.metricValue(CURRENT_PHASE)).as("still the load phase").isZero();
        assertThat(output.rowsSince(start)).isEmpty();

        writeBuildFile("001.json", FILE_001_PAST_LOAD_COMPLETION);
        restored.awaitMetric(CURRENT_PHASE, FLIP_TIMEOUT, phase -> phase == 1);
        List<PrintedRow> rows = awaitRowsAfterFlip(start);
        assertThat(lastOrderId(rows)).isGreaterThan(buffered);
        assertThat(firstOrderId(rows))
                .as("the first order buffered before the savepoint")
                .isEqualTo(1);
        assertMatchedOrders(rows, 1, lastOrderId(rows), Map.of("A", 1.0, "B", 2.0));
    }

    /** Waits until the join's build watermark is the given one. */
    static void awaitBuildWatermark(ClusterJob job, long watermark) {
        job.awaitMetric(CURRENT_BUILD_SIDE_WATERMARK, OUTPUT_TIMEOUT, value -> value == watermark);
    }

    /**
     * Waits, once the flip has been seen, until the buffered orders are all printed and newer
     * orders follow them. Returns the rows printed since the mark.
     */
    List<PrintedRow> awaitRowsAfterFlip(PrintSinkOutput.Mark start) {
        // The flip prints the buffered orders at once (key by key, within milliseconds).
        Wait.sleep(METRIC_REFRESH);
        long flushed = lastOrderId(output.rowsSince(start));
        return output.awaitRowsSince(
                start,
                OUTPUT_TIMEOUT,
                "orders newer than " + flushed + " printed after the flip",
                rows -> lastOrderId(rows) > flushed + 2);
    }

    // ---- submitting ----

    /** Submits statements with the SQL Client ({@code -i ddl.sql -f <file>}); returns the job. */
    ClusterJob submit(String statements) {
        return ClusterJob.submittedBySqlClient(cluster.rest(), sqlClient(statements));
    }

    /** Runs a statement file with the SQL Client ({@code -i ddl.sql -f <file>}). */
    String sqlClient(String statements) {
        try {
            Path file = cluster.runDirectory().resolve("statements-" + ++scripts + ".sql");
            Files.writeString(file, statements);
            return cluster.sqlClientWithFile(ddl, file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    ClusterJob submitRestoring(String savepoint, String insert) {
        return submit(restoring(savepoint, insert));
    }

    /** "SET 'execution.state-recovery.path' = ...", the INSERT, then RESET: docs/operations.md. */
    static String restoring(String savepoint, String insert) {
        return "SET 'execution.state-recovery.path' = '"
                + savepoint
                + "';\n"
                + insert
                + "RESET 'execution.state-recovery.path';\n";
    }

    /** {@code flink stop <job-id>}; returns the savepoint path it prints. */
    static String stopWithSavepoint(LocalFlinkCluster cluster, ClusterJob job) {
        String printed = cluster.flink("stop", job.id());
        Matcher path = SAVEPOINT_PATH.matcher(printed);
        assertThat(path.find()).as("a savepoint path in:%n%s", printed).isTrue();
        Wait.until(
                Duration.ofSeconds(30),
                "job " + job.id() + " FINISHED",
                () -> job.state().equals("FINISHED"));
        return path.group(1);
    }

    /** Drops a file into the build directory, whole: the source never sees it half written. */
    void writeBuildFile(String name, List<String> lines) {
        Directories.writeAtomically(buildDirectory, name, lines);
    }

    // ---- checking printed rows ----

    /**
     * Checks that the rows hold every order from {@code first} to {@code last} whose currency has a
     * rate (once each, with that rate) and no other order; {@code rates} null means any rate.
     */
    static void assertMatchedOrders(
            List<PrintedRow> rows, long first, long last, Map<String, Double> rates) {
        Set<Long> expected = new TreeSet<>();
        LongStream.rangeClosed(first, last)
                .filter(id -> rates == null || rates.containsKey(currency(id)))
                .forEach(expected::add);
        Set<Long> printed = new TreeSet<>();
        for (PrintedRow row : rows) {
            if (row.orderId() < first || row.orderId() > last) {
                continue;
            }
            assertThat(row.currency()).as("%s", row).isEqualTo(currency(row.orderId()));
            if (rates != null) {
                assertThat(matches(row, rates)).as("rate of %s, expected %s", row, rates).isTrue();
            }
            assertThat(printed.add(row.orderId())).as("%s printed once", row).isTrue();
        }
        assertThat(printed).as("orders printed from %s to %s", first, last).isEqualTo(expected);
    }

    /** Currency to rate, allowing null rates. */
    static Map<String, Double> rates(Object... currencyAndRate) {
        Map<String, Double> rates = new HashMap<>();
        for (int i = 0; i < currencyAndRate.length; i += 2) {
            rates.put((String) currencyAndRate[i], (Double) currencyAndRate[i + 1]);
        }
        return rates;
    }

    static boolean matches(PrintedRow row, Map<String, Double> rates) {
        return rates.containsKey(row.currency())
                && Objects.equals(rates.get(row.currency()), row.rate());
    }

    static long countMatching(List<PrintedRow> rows, Map<String, Double> rates) {
        return rows.stream().filter(row -> matches(row, rates)).count();
    }

    static long countOrders(List<PrintedRow> rows, String currency) {
        return rows.stream().filter(row -> row.currency().equals(currency)).count();
    }

    static long countOrders(long first, long last, String currency) {
        return LongStream.rangeClosed(first, last)
                .filter(id -> currency(id).equals(currency))
                .count();
    }

    static long firstOrderId(List<PrintedRow> rows) {
        return rows.isEmpty() ? 0 : rows.get(0).orderId();
    }

    static long lastOrderId(List<PrintedRow> rows) {
        return rows.isEmpty() ? 0 : rows.get(rows.size() - 1).orderId();
    }
}
