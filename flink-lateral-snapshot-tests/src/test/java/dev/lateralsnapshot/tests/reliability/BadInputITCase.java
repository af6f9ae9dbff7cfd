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

package dev.lateralsnapshot.tests.reliability;

import dev.lateralsnapshot.tests.runtime.MiniClusterTestBase;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.StateBackendKind;
import dev.lateralsnapshot.testutils.metrics.JoinMetrics;
import dev.lateralsnapshot.testutils.tables.RateChanges;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.types.Row;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;

import static dev.lateralsnapshot.tests.reliability.ControlledJob.delete;
import static dev.lateralsnapshot.tests.reliability.ControlledJob.insert;
import static dev.lateralsnapshot.tests.reliability.ControlledJob.millis;
import static dev.lateralsnapshot.tests.reliability.ControlledJob.updateAfter;
import static dev.lateralsnapshot.tests.reliability.ControlledJob.updateBefore;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PROBE_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_LATE_BUILD_SIDE_RECORDS;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_PROBE_SIDE_RECORDS_BUFFERED;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_BUILD_RETRACTIONS;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_PROBE_RECORDS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ORDERS_WITH_CURRENCY_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad and unusual input: what the join does with it, what the user sees, and that no probe row is
 * lost on the way. The behaviour each test pins is the one {@code docs/reliability.md} documents.
 */
class BadInputITCase extends MiniClusterTestBase {

    /** Flink's own gauge of the watermark the join forwarded last. */
    private static final String CURRENT_OUTPUT_WATERMARK = "currentOutputWatermark";

    private static final LocalDateTime TEN = LocalDateTime.of(2026, 1, 1, 10, 0);
    private static final LocalDateTime NOON = LocalDateTime.of(2026, 1, 1, 12, 0);

    /** A directory that the filesystem source reads files from as they come. */
    private static final String MONITORED = ", 'source.monitor-interval' = '100 ms'";

    /** Joins the orders with the rates; the load phase ends when the build watermark is noon. */
    private static final String LEFT_JOIN =
            "INSERT INTO enriched SELECT o.order_id, r.rate FROM orders AS o LEFT JOIN LATERAL"
                    + " SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(update_time),"
                    + " load_completed_time => CAST(TIMESTAMP '2026-01-01 12:00:00' AS"
                    + " TIMESTAMP_LTZ(3))) AS r ON o.currency = r.currency";

    // ---- NULL keys ----

    /**
     * NULL never equals anything with {@code =}, also not NULL, in either part of a composite key:
     * such probe rows find no match (LEFT pads them, and counts them as unmatched), such build rows
     * are never matched. With {@code IS NOT DISTINCT FROM} NULL matches NULL.
     */
    @ParameterizedTest
    @ValueSource(strings = {"=", "IS NOT DISTINCT FROM"})
    void nullKeyPartsMatchOnlyWithIsNotDistinctFrom(String equality) throws Exception {
        boolean nullSafe = !equality.equals("=");
        try (ControlledJob job = ControlledJob.prepare(StateBackendKind.ROCKSDB, 2)) {
            job.env()
                    .executeSql(
                            "CREATE TABLE orders (order_id BIGINT, currency STRING, region STRING,"
                                    + " ts AS LOCALTIMESTAMP,"
                                    + " WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ("
                                    + job.ordersOptions()
                                    + ")");
            job.env()
                    .executeSql(
                            "CREATE TABLE rates (currency STRING, region STRING, rate DOUBLE,"
                                    + " update_time TIMESTAMP(3),"
                                    + " WATERMARK FOR update_time AS update_time) WITH ("
                                    + job.ratesOptions()
                                    + ")");
            createSink(job);
            job.submit(
                    cluster(),
                    "INSERT INTO enriched SELECT o.order_id, r.rate FROM orders AS o"
                            + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                            + " on_time => DESCRIPTOR(update_time),"
                            + " load_completed_time =>"
                            + " CAST(TIMESTAMP '2026-01-01 12:00:00' AS TIMESTAMP_LTZ(3))) AS r"
                            + " ON o.currency "
                            + equality
                            + " r.currency AND o.region "
                            + equality
                            + " r.region");

            // Orders 1 to 5 are buffered in the load phase, under their keys with NULLs too.
            job.emitOrders(
                    Row.of(1L, "A", "EU"),
                    Row.of(2L, null, "EU"),
                    Row.of(3L, "A", null),
                    Row.of(4L, null, null),
                    Row.of(5L, "B", "EU"));
            job.emitBuild(
                    insert("A", "EU", 1.0, TEN),
                    insert(null, "EU", 2.0, TEN),
                    insert("A", null, 3.0, TEN),
                    insert(null, null, 4.0, TEN),
                    insert("Z", "Z", 0.0, NOON));
            job.job().awaitMetrics("every subtask flips", m -> m.allEqual(CURRENT_PHASE, 1));
            // And the same keys in the join phase.
            job.emitOrders(Row.of(6L, null, "EU"), Row.of(7L, null, null));

            List<String> expected =
                    nullSafe
                            ? List.of(
                                    "+I[1, 1.0]",
                                    "+I[2, 2.0]",
                                    "+I[3, 3.0]",
                                    "+I[4, 4.0]",
                                    "+I[5, null]",
                                    "+I[6, 2.0]",
                                    "+I[7, 4.0]")
                            : List.of(
                                    "+I[1, 1.0]",
                                    "+I[2, null]",
                                    "+I[3, null]",
                                    "+I[4, null]",
                                    "+I[5, null]",
                                    "+I[6, null]",
                                    "+I[7, null]");
            assertThat(job.awaitOutput(7)).containsExactlyInAnyOrderElementsOf(expected);
            job.job()
                    .awaitMetrics(
                            "the unmatched orders are counted",
                            m -> m.sum(NUM_UNMATCHED_PROBE_RECORDS) == (nullSafe ? 1 : 6));
        }
    }

    // ---- malformed changelog rows ----

    /**
     * With {@code debezium-json.ignore-parse-errors} false (the default) a row that is no valid
     * Debezium JSON fails the job, with the row in the message; nothing is emitted from a build
     * side read only in part.
     */
    @Test
    void malformedDebeziumRowFailsTheJob() throws Exception {
        Path build = Files.createDirectory(directory.resolve("build"));
        try (ControlledJob job = ControlledJob.prepare(StateBackendKind.HEAP, 2)) {
            job.env().getConfig().set("restart-strategy.type", "none");
            createFileTables(
                    job, build, MONITORED + ", 'debezium-json.ignore-parse-errors' = 'false'");
            job.submit(cluster(), LEFT_JOIN);
            job.emitOrders(Row.of(1L, "A"), Row.of(2L, "B"));
            Directories.writeAtomically(build, "001.json", malformedFile());

            assertThat(job.job().awaitTermination()).isEqualTo(JobStatus.FAILED);
            assertThat(
                            ExceptionUtils.findThrowableWithMessage(
                                    job.job().failureCause(),
                                    "Corrupt Debezium JSON message '{\"this is\": not json'."))
                    .isPresent();
            assertThat(job.output()).isEmpty();
        }
    }

    /**
     * With {@code debezium-json.ignore-parse-errors} true the malformed row is skipped, silently
     * (the format logs it at DEBUG and counts it nowhere); the rows around it are applied.
     */
    @Test
    void malformedDebeziumRowIsSkippedWhenParseErrorsAreIgnored() throws Exception {
        Path build = Files.createDirectory(directory.resolve("build"));
        try (ControlledJob job = ControlledJob.prepare(StateBackendKind.HEAP, 2)) {
            createFileTables(
                    job, build, MONITORED + ", 'debezium-json.ignore-parse-errors' = 'true'");
            job.submit(cluster(), LEFT_JOIN);
            job.emitOrders(Row.of(1L, "A"), Row.of(2L, "B"));
            Directories.writeAtomically(build, "001.json", malformedFile());
            job.job().awaitMetrics("every subtask flips", m -> m.allEqual(CURRENT_PHASE, 1));
            assertThat(job.awaitOutput(2)).containsExactlyInAnyOrder("+I[1, 1.0]", "+I[2, 2.0]");
            assertThat(job.job().failures()).isZero();
        }
    }

    /**
     * A build row without a time fails the job: Flink's watermark assigner rejects a NULL rowtime
     * ("RowTime field should not be null"), before the join sees the row.
     */
    @Test
    void buildRowWithoutTimeFailsTheJob() throws Exception {
        Path build = Files.createDirectory(directory.resolve("build"));
        try (ControlledJob job = ControlledJob.prepare(StateBackendKind.HEAP, 2)) {
            job.env().getConfig().set("restart-strategy.type", "none");
            createFileTables(
                    job, build, MONITORED + ", 'debezium-json.ignore-parse-errors' = 'true'");
            job.submit(cluster(), LEFT_JOIN);
            job.emitOrders(Row.of(1L, "A"));
            Directories.writeAtomically(
                    build, "001.json", List.of(RateChanges.insert("A", 1.0, null)));

            assertThat(job.job().awaitTermination()).isEqualTo(JobStatus.FAILED);
            assertThat(
                            ExceptionUtils.findThrowableWithMessage(
                                    job.job().failureCause(), "RowTime field should not be null"))
                    .isPresent();
            assertThat(job.output()).isEmpty();
        }
    }

    // ---- retractions and late rows ----

    /**
     * A -D or -U that finds no equal row (never inserted, or with other values) retracts nothing
     * and is counted in numUnmatchedBuildRetractions; the +U of such a pair is inserted.
     */
    @Test
    void retractionsOfRowsNeverInsertedAreCounted() throws Exception {
        try (ControlledJob job = startChannelJob()) {
            job.emitBuild(insert("A", 1.0, TEN), insert("Z", 0.0, NOON));
            job.job().awaitMetrics("every subtask flips", m -> m.allEqual(CURRENT_PHASE, 1));
            LocalDateTime one = NOON.plusHours(1);
            job.emitBuild(
                    delete("X", 9.0, TEN),
                    updateBefore("Y", 5.0, TEN),
                    updateAfter("Y", 6.0, one),
                    // A exists, but with another rate: a retraction must match the whole row.
                    delete("A", 9.9, TEN),
                    insert("Z", 0.0, one.plusHours(1)));
            job.awaitBuildWatermark(millis(one.plusHours(1)));
            JoinMetrics metrics = job.metrics();
            assertThat(metrics.sum(NUM_UNMATCHED_BUILD_RETRACTIONS)).isEqualTo(3);

            job.emitOrders(Row.of(1L, "A"), Row.of(2L, "X"), Row.of(3L, "Y"));
            assertThat(job.awaitOutput(3))
                    .containsExactlyInAnyOrder("+I[1, 1.0]", "+I[2, null]", "+I[3, 6.0]");
        }
    }

    /**
     * A build change whose time the build watermark has already passed is applied at once, without
     * waiting for another watermark; inserts and updates are counted in numLateBuildSideRecords,
     * retractions not (they carry the time of the row they retract).
     */
    @Test
    void buildRowsBehindTheWatermarkApplyAtOnce() throws Exception {
        try (ControlledJob job = startChannelJob()) {
            job.emitBuild(insert("A", 1.0, TEN), insert("Z", 0.0, NOON));
            job.job().awaitMetrics("every subtask flips", m -> m.allEqual(CURRENT_PHASE, 1));
            job.emitBuild(
                    insert("C", 3.0, TEN.minusHours(1)),
                    updateBefore("A", 1.0, TEN),
                    updateAfter("A", 1.5, TEN.plusHours(1)));
            job.job()
                    .awaitMetrics(
                            "the late insert and update are counted",
                            m -> m.sum(NUM_LATE_BUILD_SIDE_RECORDS) == 2);
            job.emitOrders(Row.of(1L, "C"), Row.of(2L, "A"));
            assertThat(job.awaitOutput(2)).containsExactlyInAnyOrder("+I[1, 3.0]", "+I[2, 1.5]");

            job.emitBuild(delete("C", 3.0, TEN.minusHours(1)));
            job.awaitAllRowsRead();
            job.emitOrders(Row.of(3L, "C"));
            assertThat(job.awaitOutput(3)).contains("+I[3, null]");
            JoinMetrics metrics = job.metrics();
            assertThat(metrics.sum(NUM_LATE_BUILD_SIDE_RECORDS)).isEqualTo(2);
            // Nothing waited for a watermark: it is still the one of the flip.
            assertThat(metrics.longs(CURRENT_BUILD_SIDE_WATERMARK).values())
                    .containsOnly(millis(NOON));
        }
    }

    // ---- build sides that never complete ----

    /**
     * An empty, bounded build side: when its source ends, its watermark jumps to the end of time,
     * and the join flips. The INNER join drops every order and counts it, the LEFT join pads it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"JOIN", "LEFT JOIN"})
    void emptyBuildSideMatchesNothing(String join) throws Exception {
        Path build = Files.createDirectory(directory.resolve("build"));
        try (ControlledJob job = ControlledJob.prepare(StateBackendKind.HEAP, 2)) {
            // No monitor interval: the directory is read once, and the source ends.
            createFileTables(job, build, "");
            job.submit(cluster(), LEFT_JOIN.replace("LEFT JOIN", join));
            job.emitOrders(Row.of(1L, "A"), Row.of(2L, "B"), Row.of(3L, "C"));
            job.job()
                    .awaitMetrics(
                            "every order is joined, with nothing",
                            m -> m.sum(NUM_UNMATCHED_PROBE_RECORDS) == 3);
            JoinMetrics metrics = job.metrics();
            assertThat(metrics.longs(CURRENT_PHASE).values()).containsOnly(1L);
            assertThat(metrics.longs(CURRENT_BUILD_SIDE_WATERMARK).values())
                    .containsOnly(Long.MAX_VALUE);
            if (join.equals("JOIN")) {
                assertThat(job.output()).isEmpty();
            } else {
                assertThat(job.awaitOutput(3))
                        .containsExactlyInAnyOrder("+I[1, null]", "+I[2, null]", "+I[3, null]");
            }
        }
    }

    /**
     * An empty build side (a monitored directory without files) sends no row and no watermark, but
     * Flink marks it idle, and that starts the idle timeout's clock: the join flips, the buffered
     * orders come out padded with NULLs, and a rate that arrives later reaches the next orders.
     * Flink 2.4's join does the same; until this library did, the join loaded for good.
     */
    @Test
    void emptyIdleBuildSideEndsTheLoadPhaseAfterTheIdleTimeout() throws Exception {
        Path build = Files.createDirectory(directory.resolve("build"));
        try (ControlledJob job = ControlledJob.prepare(StateBackendKind.HEAP, 2)) {
            createFileTables(job, build, MONITORED);
            job.submit(
                    cluster(),
                    "INSERT INTO enriched SELECT o.order_id, r.rate FROM orders AS o"
                            + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                            + " on_time => DESCRIPTOR(update_time),"
                            + " load_completed_idle_timeout => INTERVAL '1' SECOND) AS r"
                            + " ON o.currency = r.currency");
            job.emitOrders(Row.of(1L, "A"), Row.of(2L, "B"), Row.of(3L, "A"));
            assertThat(job.awaitOutput(3))
                    .containsExactlyInAnyOrder("+I[1, null]", "+I[2, null]", "+I[3, null]");
            JoinMetrics metrics = job.metrics();
            assertThat(metrics.longs(CURRENT_PHASE).values()).containsOnly(1L);
            assertThat(metrics.longs(CURRENT_BUILD_SIDE_WATERMARK).values())
                    .containsOnly(Long.MIN_VALUE);
            assertThat(job.job().failures()).isZero();

            Directories.writeAtomically(
                    build,
                    "001.json",
                    List.of(RateChanges.insert("A", 1.0, "2026-01-01 10:00:00")));
            job.job()
                    .awaitMetrics(
                            "the rate is applied",
                            m -> m.allEqual(CURRENT_BUILD_SIDE_WATERMARK, millis(TEN)));
            job.emitOrders(Row.of(4L, "A"));
            assertThat(job.awaitOutput(4)).contains("+I[4, 1.0]");
        }
    }

    // ---- an idle probe side ----

    /**
     * An idle probe side loses no row: orders buffered before it went idle come out at the flip,
     * and while it is idle the build side goes on changing, which the next orders see.
     */
    @Test
    void idleProbeSideLosesNoRow() throws Exception {
        try (ControlledJob job = startChannelJob()) {
            job.emitBuild(insert("A", 1.0, TEN));
            job.emitOrders(Row.of(1L, "A"), Row.of(2L, "A"));
            job.awaitAllRowsRead();
            // The probe side goes idle: no orders for longer than the source idle timeout.
            Thread.sleep(1000);
            job.emitBuild(insert("Z", 0.0, NOON));
            job.job().awaitMetrics("every subtask flips", m -> m.allEqual(CURRENT_PHASE, 1));
            assertThat(job.awaitOutput(2)).containsExactlyInAnyOrder("+I[1, 1.0]", "+I[2, 1.0]");

            job.emitBuild(
                    updateBefore("A", 1.0, TEN),
                    updateAfter("A", 1.5, NOON.plusHours(1)),
                    insert("Z", 0.0, NOON.plusHours(2)));
            job.awaitBuildWatermark(millis(NOON.plusHours(2)));
            Thread.sleep(1000);
            job.emitOrders(Row.of(3L, "A"), Row.of(4L, "A"));
            assertThat(job.awaitOutput(4).subList(2, 4))
                    .containsExactlyInAnyOrder("+I[3, 1.5]", "+I[4, 1.5]");
        }
    }

    /**
     * The probe watermark is held back in the load phase: the join forwards none while its probe
     * watermark moves. At the flip it is released (docs/lateral-snapshot-join.md, "How it works"),
     * also when the probe side has gone idle meanwhile: downstream operators must learn that the
     * orders emitted at the flip are complete up to it, and must not have moved past them while the
     * join was loading.
     */
    @Test
    void heldProbeWatermarkIsReleasedAtTheFlipAlsoWhenTheProbeSideIsIdle() throws Exception {
        try (ControlledJob job = startChannelJob()) {
            job.emitBuild(insert("A", 1.0, TEN));
            job.emitOrders(Row.of(1L, "A"), Row.of(2L, "A"));
            job.job()
                    .awaitMetrics(
                            "the orders are buffered and the probe watermark moves",
                            m ->
                                    m.sum(NUM_PROBE_SIDE_RECORDS_BUFFERED) == 2
                                            && m
                                                    .longs(CURRENT_PROBE_SIDE_WATERMARK)
                                                    .values()
                                                    .stream()
                                                    .allMatch(
                                                            watermark ->
                                                                    watermark > Long.MIN_VALUE));
            assertThat(job.metrics().longs(CURRENT_OUTPUT_WATERMARK).values())
                    .as("held back in the load phase")
                    .containsOnly(Long.MIN_VALUE);

            Thread.sleep(1000);
            job.emitBuild(insert("Z", 0.0, NOON));
            job.job().awaitMetrics("every subtask flips", m -> m.allEqual(CURRENT_PHASE, 1));
            assertThat(job.awaitOutput(2)).containsExactlyInAnyOrder("+I[1, 1.0]", "+I[2, 1.0]");
            JoinMetrics metrics = job.metrics();
            assertThat(metrics.longs(CURRENT_OUTPUT_WATERMARK))
                    .as("the held probe watermark, released at the flip")
                    .isEqualTo(metrics.longs(CURRENT_PROBE_SIDE_WATERMARK));
        }
    }

    // ---- helpers ----

    /** The orders and rates fed through channels, joined as {@link #LEFT_JOIN}. */
    private ControlledJob startChannelJob() throws Exception {
        ControlledJob job = ControlledJob.prepare(StateBackendKind.HEAP, 2);
        try {
            job.env()
                    .executeSql(
                            createTable(
                                    "orders", ORDERS_WITH_CURRENCY_COLUMNS, job.ordersOptions()));
            job.env().executeSql(createTable("rates", RATES_COLUMNS, job.ratesOptions()));
            createSink(job);
            return job.submit(cluster(), LEFT_JOIN);
        } catch (Exception | AssertionError e) {
            job.close();
            throw e;
        }
    }

    /**
     * Orders through a channel, rates from a directory of debezium-json files; more options of the
     * rates table follow a comma each.
     */
    private static void createFileTables(ControlledJob job, Path build, String moreOptions) {
        job.env()
                .executeSql(
                        createTable("orders", ORDERS_WITH_CURRENCY_COLUMNS, job.ordersOptions()));
        job.env()
                .executeSql(
                        createTable(
                                "rates",
                                RATES_COLUMNS,
                                Directories.filesystem(build, "debezium-json") + moreOptions));
        createSink(job);
    }

    private static void createSink(ControlledJob job) {
        job.env()
                .executeSql(
                        createTable("enriched", "order_id BIGINT, rate DOUBLE", job.sinkOptions()));
    }

    /** A, a line that is no JSON, B, and Z, which moves the build watermark to noon. */
    private static List<String> malformedFile() {
        return List.of(
                RateChanges.insert("A", 1.0, "2026-01-01 10:00:00"),
                "{\"this is\": not json",
                RateChanges.insert("B", 2.0, "2026-01-01 10:00:00"),
                RateChanges.insert("Z", 0.0, "2026-01-01 12:00:00"));
    }
}
