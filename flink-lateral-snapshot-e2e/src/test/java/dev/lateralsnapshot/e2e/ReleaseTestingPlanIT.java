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

import dev.lateralsnapshot.e2e.programs.TableApiProgram;
import dev.lateralsnapshot.testutils.connectors.Directories;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.EQUI;
import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.IDLE_TIMEOUT;
import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.LOAD_COMPLETED_TIME;
import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.STATE_TTL;
import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.insert;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.AVG_JOIN_FAN_OUT;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.MAX_JOIN_FAN_OUT;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_PROBE_SIDE_RECORDS_BUFFERED;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_STATE_TTL_EVICTIONS;
import static dev.lateralsnapshot.testutils.tables.RateChanges.FILE_001;
import static dev.lateralsnapshot.testutils.tables.RateChanges.FILE_002;
import static dev.lateralsnapshot.testutils.tables.RateChanges.WATERMARK_OF_001;
import static dev.lateralsnapshot.testutils.tables.RateChanges.WATERMARK_OF_002;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_ORDERS_CSV;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_RATES_CSV;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.PROBE_AGG_QUERY;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS_WITHOUT_WATERMARK;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_RAND_QUERY;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The join on a cluster with the default (heap) state backend: the load phase and the flip, the
 * load completion time, build-side changes, planning errors, join conditions and parallelism, state
 * TTL, savepoints in both phases and batch mode, each as docs/lateral-snapshot-join.md describes
 * it; plus the drop-in jar under Flink's other entry points: an ordinary query in the SQL Client
 * and a Table API program submitted with {@code flink run}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReleaseTestingPlanIT extends ReleaseTestingPlanTestBase {

    private static final String JOIN_PLAN = "LateralSnapshotJoin(joinType=[InnerJoin]";
    private static final String SQL_ERROR = "[ERROR] Could not execute SQL statement. Reason:";

    /** The reason the SQL Client gives for a rejected statement starts with its class's name. */
    private static final String VALIDATION_EXCEPTION =
            "org.apache.flink.table.api.ValidationException";

    private static final String TABLE_EXCEPTION = "org.apache.flink.table.api.TableException";

    private static final Pattern ANSI_ESCAPE = Pattern.compile("\u001B\\[[;\\d]*m");
    private static final Pattern TABLEAU_ROW =
            Pattern.compile("^\\|\\s*(\\S+)\\s*\\|\\s*(\\S+)\\s*\\|\\s*(\\S+)\\s*\\|$");

    @Override
    Map<String, String> clusterOptions() {
        return Map.of();
    }

    @Test
    @Order(0)
    void clusterRunsAnOrdinaryQueryOnSeparateTaskManagers() {
        assertThat(cluster.daemonPids()).as("a JobManager and two TaskManagers").hasSize(3);
        assertThat(cluster.rest().get("/taskmanagers").path("taskmanagers")).hasSize(2);
        assertThat(cluster.rest().getText("/")).contains("Apache Flink Web Dashboard");

        PrintSinkOutput.Mark start = output.mark();
        submit(
                "INSERT INTO out_print\n"
                        + "SELECT order_id, currency, CAST(order_id AS DOUBLE) FROM orders;\n");
        List<PrintedRow> rows =
                output.awaitRowsSince(
                        start, OUTPUT_TIMEOUT, "three orders", printed -> printed.size() >= 3);
        assertThat(rows).allMatch(row -> row.rate() == row.orderId());
    }

    @Test
    @Order(1)
    void section1LoadPhaseAndFlipThenSection7SavepointAndRestoreInJoinPhase() {
        ClusterJob job = loadPhaseAndFlipViaIdleTimeout();
        // The job of the load phase, which has no state TTL, so that what the restored job matches
        // depends on the restored build side alone.
        savepointAndRestoreInJoinPhase(job, insert("JOIN", EQUI, IDLE_TIMEOUT));
    }

    @Test
    @Order(2)
    void section2StuckInTheLoadPhaseThenExplicitLoadCompletionTime() {
        PrintSinkOutput.Mark start = output.mark();
        ClusterJob stuck = submit(insert("JOIN", EQUI));
        writeBuildFile("001.json", FILE_001);
        awaitBuildWatermark(stuck, WATERMARK_OF_001);
        double buffered = stuck.metricValue(NUM_PROBE_SIDE_RECORDS_BUFFERED);
        // No idle timeout and a load completion time of today: nothing moves it out of the load
        // phase, while about one more order per second is buffered.
        Wait.sleep(Duration.ofSeconds(5));
        assertThat(stuck.metricValue(CURRENT_PHASE)).isZero();
        assertThat(stuck.metricValue(NUM_PROBE_SIDE_RECORDS_BUFFERED)).isGreaterThan(buffered);
        assertThat(stuck.metricValue(CURRENT_BUILD_SIDE_WATERMARK))
                .isEqualTo((double) WATERMARK_OF_001);
        assertThat(output.rowsSince(start)).isEmpty();
        cancelJobsAndEmptyBuildDirectory();

        ClusterJob fixed = submit(insert("JOIN", EQUI, LOAD_COMPLETED_TIME));
        writeBuildFile("001.json", FILE_001);
        awaitBuildWatermark(fixed, WATERMARK_OF_001);
        Wait.sleep(METRIC_REFRESH);
        assertThat(fixed.metricValue(CURRENT_PHASE)).as("below the load completion time").isZero();
        assertThat(output.rowsSince(start)).isEmpty();

        writeBuildFile("002.json", FILE_002);
        fixed.awaitMetric(CURRENT_PHASE, OUTPUT_TIMEOUT, phase -> phase == 1);
        assertThat(fixed.metricValue(CURRENT_BUILD_SIDE_WATERMARK))
                .isEqualTo((double) WATERMARK_OF_002);
        List<PrintedRow> rows = awaitRowsAfterFlip(start);
        assertThat(firstOrderId(rows)).as("the buffered orders").isEqualTo(1);
        assertMatchedOrders(rows, 1, lastOrderId(rows), Map.of("A", 1.0, "B", 2.0));
    }

    @Test
    @Order(3)
    void section3BuildSideUpdatesDeletesAndLeftJoin() {
        buildSideUpdatesDeletesAndLeftJoin();
    }

    /**
     * What the SQL Client answers to the statements of the reference's "Planning errors": it
     * rejects each mistake with the exception of the planner's error as the reason, and plans the
     * statements around them. The words of each error are asserted for the same statements in the
     * planner's tests of the code that raises it, which also check that the message is the root
     * cause, the part of the error the SQL Client shows; this suite cannot plan a statement itself
     * to compare the words, as its class path has no Flink (it talks to Flink only through its
     * scripts, CLI and REST API).
     */
    @Test
    @Order(4)
    void section4PlanningTimeValidation() {
        String snapshotRates = "SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(update_time))";
        String select = "EXPLAIN SELECT o.order_id FROM orders AS o ";
        String on = " ON o.currency = r.currency;";
        String randRates =
                " FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE rates_rand,"
                        + " on_time => DESCRIPTOR(update_time)) AS r ON o.currency = r.currency;";
        List<Step> steps =
                List.of(
                        new Step(
                                createTable(
                                                "rates_nowm",
                                                RATES_COLUMNS_WITHOUT_WATERMARK,
                                                ReleaseTestingPlan.buildSide(buildDirectory))
                                        + ";",
                                Outcome.succeeds()),
                        new Step(
                                "CREATE VIEW rates_rand AS " + RATES_RAND_QUERY + ";",
                                Outcome.succeeds()),
                        new Step(
                                "CREATE VIEW probe_agg AS " + PROBE_AGG_QUERY + ";",
                                Outcome.succeeds()),
                        new Step(
                                select
                                        + "JOIN LATERAL SNAPSHOT(input => TABLE rates_nowm,"
                                        + " on_time => DESCRIPTOR(update_time)) AS r"
                                        + on,
                                Outcome.rejectedWith(VALIDATION_EXCEPTION)),
                        new Step(
                                select + "JOIN LATERAL SNAPSHOT(input => TABLE rates) AS r" + on,
                                Outcome.rejectedWith(VALIDATION_EXCEPTION)),
                        new Step(
                                select
                                        + "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                        + " on_time => DESCRIPTOR(rate)) AS r"
                                        + on,
                                Outcome.rejectedWith(VALIDATION_EXCEPTION)),
                        // probe_agg has no o.order_id (a query selecting it fails on the column
                        // first); its columns are currency and c.
                        new Step(
                                "EXPLAIN SELECT o.currency, o.c FROM probe_agg AS o JOIN LATERAL "
                                        + snapshotRates
                                        + " AS r"
                                        + on,
                                Outcome.rejectedWith(VALIDATION_EXCEPTION)),
                        new Step(
                                select + "RIGHT JOIN LATERAL " + snapshotRates + " AS r" + on,
                                Outcome.rejectedWith(VALIDATION_EXCEPTION)),
                        new Step(
                                select + "FULL JOIN LATERAL " + snapshotRates + " AS r" + on,
                                Outcome.rejectedWith(VALIDATION_EXCEPTION)),
                        new Step(
                                "EXPLAIN SELECT * FROM TABLE(" + snapshotRates + ");",
                                Outcome.rejectedWith(VALIDATION_EXCEPTION)),
                        new Step(
                                "SET 'table.optimizer.non-deterministic-update.strategy' ="
                                        + " 'TRY_RESOLVE';",
                                Outcome.succeeds()),
                        new Step(
                                "EXPLAIN SELECT o.order_id, r.rate, r.r" + randRates,
                                Outcome.rejectedWith(TABLE_EXCEPTION)),
                        new Step(
                                "EXPLAIN SELECT o.order_id, r.rate" + randRates,
                                Outcome.plans(JOIN_PLAN)),
                        new Step(
                                "RESET 'table.optimizer.non-deterministic-update.strategy';",
                                Outcome.succeeds()),
                        new Step(
                                "EXPLAIN SELECT o.order_id, r.rate, r.r" + randRates,
                                Outcome.plans(JOIN_PLAN)),
                        // The three syntax variants.
                        new Step(
                                select + "JOIN LATERAL " + snapshotRates + " AS r" + on,
                                Outcome.plans(JOIN_PLAN)),
                        new Step(
                                select + "JOIN LATERAL TABLE(" + snapshotRates + ") AS r" + on,
                                Outcome.plans(JOIN_PLAN)),
                        new Step(
                                select
                                        + "CROSS JOIN LATERAL "
                                        + snapshotRates
                                        + " AS r WHERE o.currency = r.currency;",
                                Outcome.plans(JOIN_PLAN)));

        // A failing statement aborts a -f script, so the statements are typed into one
        // interactive session, one at a time.
        List<String> results =
                interactiveResults(
                        steps.stream().map(Step::statement).collect(Collectors.toList()));
        // Every answer is checked, so that one wrong answer does not hide the others.
        SoftAssertions answers = new SoftAssertions();
        for (int i = 0; i < steps.size(); i++) {
            steps.get(i).outcome().check(answers, steps.get(i).statement(), results.get(i));
        }
        answers.assertAll();
    }

    @Test
    @Order(5)
    void section5EquiAndNonEquiPredicateRunsAtParallelismTwo() {
        PrintSinkOutput.Mark start = output.mark();
        ClusterJob job = submitAtParallelismTwo(EQUI + " AND o.order_id >= 0");
        assertThat(job.joinVertex().path("parallelism").asInt()).isEqualTo(2);
        writeBuildFile("001.json", FILE_001);

        Wait.until(
                FLIP_TIMEOUT,
                "both join subtasks in the join phase",
                () -> job.metric(CURRENT_PHASE),
                phases -> phases.stream().allMatch(phase -> phase == 1));
        assertThat(job.metric(CURRENT_BUILD_SIDE_WATERMARK))
                .as("per subtask")
                .containsExactly((double) WATERMARK_OF_001, (double) WATERMARK_OF_001);
        List<PrintedRow> rows =
                output.awaitRowsSince(
                        start,
                        OUTPUT_TIMEOUT,
                        "A and B orders",
                        printed ->
                                countOrders(printed, "A") >= 3 && countOrders(printed, "B") >= 3);
        assertThat(rows).allMatch(row -> matches(row, Map.of("A", 1.0, "B", 2.0)));
    }

    @Test
    @Order(5)
    void section5NonEquiPredicateRunsAtParallelismOne() {
        PrintSinkOutput.Mark start = output.mark();
        ClusterJob job = submitAtParallelismTwo("o.currency <> r.currency");
        assertThat(job.joinVertex().path("parallelism").asInt()).isEqualTo(1);
        assertThat(job.vertex("Source: orders").path("parallelism").asInt()).isEqualTo(2);
        assertThat(job.vertex("Source: rates").path("parallelism").asInt()).isEqualTo(2);
        writeBuildFile("001.json", FILE_001);
        job.awaitMetric(CURRENT_PHASE, FLIP_TIMEOUT, phase -> phase == 1);
        awaitEveryOtherRate(start);
        assertThat(job.metricValue(MAX_JOIN_FAN_OUT)).isEqualTo(3.0);
        assertThat(job.metricValue(AVG_JOIN_FAN_OUT)).isStrictlyBetween(2.0, 3.0);
    }

    /**
     * With a broadcast build side (docs/operations.md, "Broadcast build side") the same join runs
     * at the parallelism of the orders, each subtask with every rate, and prints the same rows.
     */
    @Test
    @Order(5)
    void section5NonEquiPredicateWithABroadcastBuildSideRunsAtParallelismTwo() {
        PrintSinkOutput.Mark start = output.mark();
        ClusterJob job =
                submitAtParallelismTwo(
                        "o.currency <> r.currency",
                        "SET 'table.exec.lateral-snapshot.build-distribution' = 'broadcast';\n");
        assertThat(job.joinVertex().path("parallelism").asInt()).isEqualTo(2);
        assertThat(job.vertex("Source: orders").path("parallelism").asInt()).isEqualTo(2);
        writeBuildFile("001.json", FILE_001);
        Wait.until(
                FLIP_TIMEOUT,
                "both join subtasks in the join phase",
                () -> job.metric(CURRENT_PHASE),
                phases -> phases.stream().allMatch(phase -> phase == 1));
        awaitEveryOtherRate(start);
    }

    /** Every order joins all other currencies: A with B and Z, B with A and Z, C with A, B, Z. */
    private void awaitEveryOtherRate(PrintSinkOutput.Mark start) {
        Map<String, Set<Double>> otherRates =
                Map.of("A", Set.of(2.0, 0.0), "B", Set.of(1.0, 0.0), "C", Set.of(1.0, 2.0, 0.0));
        List<PrintedRow> rows =
                output.awaitRowsSince(
                        start,
                        OUTPUT_TIMEOUT,
                        "every other rate of every currency",
                        printed ->
                                otherRates.entrySet().stream()
                                        .allMatch(
                                                currency ->
                                                        ratesOf(printed, currency.getKey())
                                                                .equals(currency.getValue())));
        assertThat(rows).allMatch(row -> otherRates.get(row.currency()).contains(row.rate()));
    }

    @Test
    @Order(6)
    void section6StateTtl() {
        PrintSinkOutput.Mark start = output.mark();
        ClusterJob job = submit(insert("JOIN", EQUI, IDLE_TIMEOUT, STATE_TTL));
        job.awaitMetric(NUM_PROBE_SIDE_RECORDS_BUFFERED, Duration.ofSeconds(30), n -> n >= 2);
        assertThat(job.metricValue(NUM_STATE_TTL_EVICTIONS))
                .as("nothing evicted in the load phase")
                .isZero();
        writeBuildFile("001.json", FILE_001);
        awaitBuildWatermark(job, WATERMARK_OF_001);
        assertThat(job.metricValue(NUM_STATE_TTL_EVICTIONS))
                .as("nothing evicted in the load phase")
                .isZero();
        job.awaitMetric(CURRENT_PHASE, FLIP_TIMEOUT, phase -> phase == 1);

        // Z is never probed and goes after 20 s; A and B are probed all the time and stay.
        job.awaitMetric(
                NUM_STATE_TTL_EVICTIONS, Duration.ofSeconds(90), evictions -> evictions >= 1);
        PrintSinkOutput.Mark afterEviction = output.mark();
        List<PrintedRow> rows =
                output.awaitRowsSince(
                        afterEviction,
                        OUTPUT_TIMEOUT,
                        "A and B orders after the eviction",
                        printed ->
                                countOrders(printed, "A") >= 2 && countOrders(printed, "B") >= 2);
        assertThat(job.metricValue(NUM_STATE_TTL_EVICTIONS)).isEqualTo(1.0);
        assertMatchedOrders(
                output.rowsSince(start), 1, lastOrderId(rows), Map.of("A", 1.0, "B", 2.0));
    }

    @Test
    @Order(7)
    void section7SavepointAndRestoreInLoadPhase() {
        savepointAndRestoreInLoadPhase();
    }

    @Test
    @Order(8)
    void section8BatchMode() throws IOException {
        Path orders = Files.createDirectories(cluster.runDirectory().resolve("orders_b"));
        Path rates = Files.createDirectories(cluster.runDirectory().resolve("rates_b"));
        Files.write(orders.resolve("o.csv"), BATCH_ORDERS_CSV);
        Files.write(rates.resolve("r.csv"), BATCH_RATES_CSV);
        String tables =
                createTable("orders_b", BATCH_ORDERS_COLUMNS, Directories.filesystem(orders, "csv"))
                        + ";\n"
                        + createTable(
                                "rates_b",
                                BATCH_RATES_COLUMNS,
                                Directories.filesystem(rates, "csv"))
                        + ";\n";
        String leftJoin =
                "SELECT o.order_id, o.currency, r.rate\n"
                        + "FROM orders_b AS o\n"
                        + "LEFT JOIN LATERAL SNAPSHOT("
                        + "input => TABLE rates_b, state_ttl => INTERVAL '1' HOUR) AS r\n"
                        + "ON o.currency = r.currency ORDER BY o.order_id, r.rate;\n";
        String explainInnerJoin =
                "EXPLAIN SELECT o.order_id, o.currency, r.rate\n"
                        + "FROM orders_b AS o\n"
                        + "JOIN LATERAL SNAPSHOT("
                        + "input => TABLE rates_b, state_ttl => INTERVAL '1' HOUR) AS r\n"
                        + "ON o.currency = r.currency;\n";
        String explainRegularJoin =
                "EXPLAIN SELECT o.order_id, o.currency, r.rate\n"
                        + "FROM orders_b AS o JOIN rates_b AS r ON o.currency = r.currency;\n";
        String printed =
                strip(
                        sqlClient(
                                "SET 'execution.runtime-mode' = 'batch';\n"
                                        + tables
                                        + leftJoin
                                        + leftJoin
                                        + explainInnerJoin
                                        + explainRegularJoin
                                        + "RESET 'execution.runtime-mode';\n"));

        List<String> expected =
                List.of(
                        "1 | A | 1.0",
                        "1 | A | 1.5",
                        "2 | B | 2.0",
                        "3 | C | NULL",
                        "4 | A | 1.0",
                        "4 | A | 1.5");
        List<String> rows = tableauRows(printed);
        assertThat(rows).as("both runs, in:%n%s", printed).hasSize(2 * expected.size());
        assertThat(rows.subList(0, expected.size())).isEqualTo(expected);
        assertThat(rows.subList(expected.size(), rows.size()))
                .as("the repeated run")
                .isEqualTo(expected);

        // Flink chooses the regular join (docs/lateral-snapshot-join.md, "Batch mode"): for these
        // four-row files Flink 2.3.0 plans a broadcast NestedLoopJoin rather than a HashJoin or an
        // AdaptiveJoin, for the regular join too: the check is that both are alike.
        List<String> plans = optimizedPlans(printed);
        assertThat(plans).hasSize(2);
        assertThat(plans.get(0))
                .contains("Join(joinType=[InnerJoin]")
                .doesNotContain("LateralSnapshotJoin");
        assertThat(plans.get(0)).as("the plan of the regular join").isEqualTo(plans.get(1));
    }

    @Test
    @Order(9)
    void tableApiProgramWithFlinkRun() throws IOException {
        Path tables = cluster.runDirectory().resolve("tables.sql");
        Files.writeString(tables, ReleaseTestingPlan.tables(buildDirectory));
        String printed =
                cluster.flink(
                        "run",
                        "--detached",
                        "--class",
                        "dev.lateralsnapshot.e2e.programs.TableApiProgram",
                        System.getProperty("e2e.programs.jar"),
                        tables.toString(),
                        insert("JOIN", EQUI, IDLE_TIMEOUT));
        assertThat(
                        between(
                                printed,
                                TableApiProgram.JOIN_LATERAL_PLAN,
                                TableApiProgram.LEFT_OUTER_JOIN_PLAN))
                .as("the plan of joinLateral(call(\"SNAPSHOT\", ...), predicate)")
                .contains("LateralSnapshotJoin(joinType=[InnerJoin]");
        assertThat(
                        between(
                                printed,
                                TableApiProgram.LEFT_OUTER_JOIN_PLAN,
                                TableApiProgram.STATEMENT_PLAN))
                .as("the plan of leftOuterJoin(env.fromCall(\"SNAPSHOT\", ...), predicate)")
                .contains("LateralSnapshotJoin(joinType=[LeftOuterJoin]");
        assertThat(printed).as("the plan of the statement").contains(JOIN_PLAN);
        Matcher jobId = Pattern.compile("Submitted job ([0-9a-f]{32})").matcher(printed);
        assertThat(jobId.find()).as("a submitted job in:%n%s", printed).isTrue();
        ClusterJob job = new ClusterJob(cluster.rest(), jobId.group(1)).awaitRunning();
        assertThat(job.joinVertex().path("name").asText()).startsWith("LateralSnapshotJoin[");
    }

    /** The text between the line {@code from} and the line {@code to}. */
    private static String between(String printed, String from, String to) {
        int start = printed.indexOf(from);
        int end = printed.indexOf(to, start);
        assertThat(start).as("%s in:%n%s", from, printed).isNotNegative();
        assertThat(end).as("%s in:%n%s", to, printed).isNotNegative();
        return printed.substring(start, end);
    }

    /**
     * The query of the load phase with another condition, at parallelism 2.
     *
     * <p>At parallelism 2 one build source subtask never reads a file, and in Flink 2.3.0 it then
     * never sends a watermark either. The build watermark of the join stays Long.MIN_VALUE: the
     * idle timeout, whose clock the first build row starts, still ends the load phase with the rows
     * read so far, but no later build change becomes visible (they wait for the watermark). Flink's
     * idle-source timeout marks that subtask idle, and the watermark passes it.
     */
    private ClusterJob submitAtParallelismTwo(String condition) {
        return submitAtParallelismTwo(condition, "");
    }

    /** {@code settings}: more {@code SET} statements for the insert, each ending with a line. */
    private ClusterJob submitAtParallelismTwo(String condition, String settings) {
        return submit(
                "SET 'parallelism.default' = '2';\n"
                        + "SET 'table.exec.source.idle-timeout' = '5 s';\n"
                        + settings
                        + insert("JOIN", condition, IDLE_TIMEOUT)
                        + "RESET 'table.exec.source.idle-timeout';\n"
                        + "RESET 'parallelism.default';\n");
    }

    // ---- the SQL Client's output ----

    /** What an interactive session printed for each statement typed into it. */
    private List<String> interactiveResults(List<String> statements) {
        String printed = strip(cluster.sqlClientInteractive(ddl, statements));
        String[] prompts = printed.split("Flink SQL> ", -1);
        // The banner before the first prompt, one part per statement, then the one for QUIT.
        assertThat(prompts)
                .as("one prompt per statement in:%n%s", printed)
                .hasSize(statements.size() + 2);
        List<String> results = new ArrayList<>();
        for (int i = 1; i <= statements.size(); i++) {
            results.add(prompts[i]);
        }
        return results;
    }

    /** The optimized physical and execution plans that EXPLAIN printed, one per statement. */
    private static List<String> optimizedPlans(String printed) {
        List<String> plans = new ArrayList<>();
        Matcher plan =
                Pattern.compile("== Optimized Physical Plan ==(.*?)\\n \\|", Pattern.DOTALL)
                        .matcher(printed);
        while (plan.find()) {
            plans.add(plan.group(1));
        }
        return plans;
    }

    /** The data rows of the tables that the SQL Client printed in tableau mode. */
    private static List<String> tableauRows(String printed) {
        List<String> rows = new ArrayList<>();
        for (String line : printed.split("\n")) {
            Matcher row = TABLEAU_ROW.matcher(line.trim());
            if (row.matches() && !row.group(1).equals("order_id")) {
                rows.add(
                        row.group(1)
                                + " | "
                                + row.group(2)
                                + " | "
                                + row.group(3).replace("<NULL>", "NULL"));
            }
        }
        return rows;
    }

    private static Set<Double> ratesOf(List<PrintedRow> rows, String currency) {
        return rows.stream()
                .filter(row -> row.currency().equals(currency))
                .map(PrintedRow::rate)
                .collect(Collectors.toSet());
    }

    private static String strip(String printed) {
        return ANSI_ESCAPE.matcher(printed).replaceAll("");
    }

    /** One statement of the planning errors test and what the SQL Client must answer to it. */
    private record Step(String statement, Outcome outcome) {}

    /** What the SQL Client must answer to one statement of the planning errors test. */
    private static final class Outcome {
        private final String exceptionClass;
        private final String planFragment;

        private Outcome(String exceptionClass, String planFragment) {
            this.exceptionClass = exceptionClass;
            this.planFragment = planFragment;
        }

        static Outcome succeeds() {
            return new Outcome(null, null);
        }

        static Outcome rejectedWith(String exceptionClass) {
            return new Outcome(exceptionClass, null);
        }

        static Outcome plans(String planFragment) {
            return new Outcome(null, planFragment);
        }

        void check(SoftAssertions answers, String statement, String printed) {
            if (exceptionClass != null) {
                answers.assertThat(printed)
                        .as("answer to %s", statement)
                        .containsPattern(
                                Pattern.quote(SQL_ERROR)
                                        + "\\s*"
                                        + Pattern.quote(exceptionClass + ": "));
            } else {
                answers.assertThat(printed).as("answer to %s", statement).doesNotContain("[ERROR]");
                if (planFragment != null) {
                    answers.assertThat(printed).as("plan of %s", statement).contains(planFragment);
                }
            }
        }
    }
}
