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

package dev.lateralsnapshot.tests.plan;

import dev.lateralsnapshot.LateralSnapshot;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.TableEnvironments;

import org.apache.flink.table.api.CompiledPlan;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ENRICHED_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The join in compiled plans (docs/operations.md, "Compiled plans"): the JSON of its exec node,
 * golden files next to this test, in the form Flink 2.4 reads; a plan written in Flink 2.4's form;
 * the load completed time a plan fixes; a plan of a later version; and batch mode, which Flink does
 * not compile for.
 */
class LateralSnapshotCompiledPlanTest {

    private static final String LOAD_COMPLETED_TIME =
            "load_completed_time => CAST(TIMESTAMP '2026-01-02 00:00:00' AS TIMESTAMP_LTZ(3))";

    /** Stands for the wall-clock time of compilation in the golden files. */
    private static final String TIME_OF_COMPILATION = "<the time of compilation>";

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir static Path directory;

    /** One statement to compile: its name is the name of its golden file. */
    record PlanCase(String name, String statement, Map<String, String> options) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<PlanCase> cases() {
        String loadCompletedTime = ", " + LOAD_COMPLETED_TIME;
        return List.of(
                new PlanCase(
                        "inner_join", enrich("JOIN", "rates", loadCompletedTime, ""), Map.of()),
                new PlanCase(
                        "left_join_default_load_completed_time",
                        enrich("LEFT JOIN", "rates", "", ""),
                        Map.of()),
                new PlanCase(
                        "idle_timeout_and_state_ttl",
                        enrich(
                                "LEFT JOIN",
                                "rates",
                                loadCompletedTime
                                        + ", load_completed_idle_timeout => INTERVAL '10' SECOND,"
                                        + " state_ttl => INTERVAL '1' HOUR",
                                ""),
                        Map.of()),
                new PlanCase(
                        "state_ttl_from_table_exec_state_ttl",
                        enrich("JOIN", "rates", loadCompletedTime, ""),
                        Map.of("table.exec.state.ttl", "2 h")),
                new PlanCase(
                        "build_with_primary_key",
                        enrich("JOIN", "rates_pk", loadCompletedTime, ""),
                        Map.of()),
                new PlanCase(
                        "non_equi_predicate",
                        enrich("LEFT JOIN", "rates", loadCompletedTime, " AND r.rate > o.order_id"),
                        Map.of()));
    }

    /**
     * The {@code INSERT INTO enriched} of orders joined with a build table; {@code arguments}
     * follow {@code on_time}, {@code condition} follows the equality of the currencies.
     */
    private static String enrich(String join, String build, String arguments, String condition) {
        return "INSERT INTO enriched SELECT o.order_id, o.currency, r.rate FROM orders AS o "
                + join
                + " LATERAL SNAPSHOT(input => TABLE "
                + build
                + ", on_time => DESCRIPTOR(update_time)"
                + arguments
                + ") AS r ON o.currency = r.currency"
                + condition;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void joinNodeMatchesGoldenFile(PlanCase planCase) throws Exception {
        TableEnvironment env = streamingEnvironment();
        planCase.options().forEach(env.getConfig()::set);
        String plan = env.compilePlanSql(planCase.statement()).asJsonString();

        ObjectNode join = joinNode(plan);
        // Flink numbers the nodes of a JVM, in the order it plans them.
        join.remove("id");
        if (join.get("loadCompletedCondition").asText().equals("compile_time")) {
            join.put("loadCompletedTime", TIME_OF_COMPILATION);
            join.put(
                    "description",
                    join.get("description")
                            .asText()
                            .replaceFirst(
                                    "load_completed_time=\\[[^]]+]",
                                    "load_completed_time=[" + TIME_OF_COMPILATION + "]"));
        }
        GoldenFiles.assertMatches(
                getClass(),
                planCase.name(),
                "COMPILE PLAN FOR "
                        + planCase.statement()
                        + "\n\n"
                        + JSON.writerWithDefaultPrettyPrinter().writeValueAsString(join)
                        + "\n");
    }

    @Test
    void theDefaultLoadCompletedTimeIsFixedWhenThePlanIsCompiled() throws Exception {
        TableEnvironment env = streamingEnvironment();
        long before = System.currentTimeMillis();
        String plan =
                env.compilePlanSql(statement("left_join_default_load_completed_time"))
                        .asJsonString();
        long after = System.currentTimeMillis();

        JsonNode join = joinNode(plan);
        assertThat(join.get("loadCompletedCondition").asText()).isEqualTo("compile_time");
        long loadCompletedTime = join.get("loadCompletedTime").asLong();
        assertThat(loadCompletedTime).isBetween(before, after);

        // Later, in another environment, the plan keeps it.
        Thread.sleep(5);
        CompiledPlan loaded = streamingEnvironment().loadPlan(PlanReference.fromJsonString(plan));
        assertThat(joinNode(loaded.asJsonString()).get("loadCompletedTime").asLong())
                .isEqualTo(loadCompletedTime);
    }

    /**
     * A plan as Flink 2.4 writes the join, with upstream's properties only (see {@link
     * #joinNodeMatchesGoldenFile}) and its description; its Flink version is 2.3, as a plan that
     * Flink 2.3 reads must be ("Unknown Flink version '2.4'" otherwise). Without this library's
     * build-side layout the join keeps the build side as a multiset.
     */
    @Test
    void aPlanInFlink24sFormatLoads() {
        TableEnvironment env = TableEnvironments.streaming();
        LateralSnapshot.install(env);
        CompiledPlan plan =
                env.loadPlan(PlanReference.fromResource("compiled-plans/flink-2.4-format.json"));

        assertThat(plan.explain())
                .contains(
                        "LateralSnapshotJoin(joinType=[InnerJoin], where=[(currency = currency0)],"
                                + " select=[order_id, currency, currency0, rate, update_time],"
                                + " loadCompletedCondition=[user_time]");
        JsonNode join = joinNode(plan.asJsonString());
        assertThat(join.get("loadCompletedIdleTimeoutMs").asLong()).isEqualTo(10_000);
        assertThat(join.get("stateTtlMs").asLong()).isEqualTo(3_600_000);
        assertThat(join.get("lateralSnapshotBuildSideLayout").asText()).isEqualTo("MULTISET");
    }

    @Test
    void aPlanOfALaterVersionFailsToLoadWithAClearMessage() {
        TableEnvironment env = streamingEnvironment();
        String plan = env.compilePlanSql(statement("inner_join")).asJsonString();
        String later =
                plan.replace(
                        "\"" + Plans.JOIN_TYPE + "\"", "\"stream-exec-lateral-snapshot-join_2\"");

        assertThatThrownBy(() -> env.loadPlan(PlanReference.fromJsonString(later)))
                .isInstanceOf(TableException.class)
                .rootCause()
                .isInstanceOf(TableException.class)
                .hasMessage(
                        "The compiled plan holds version 2 of the LATERAL SNAPSHOT join"
                                + " (stream-exec-lateral-snapshot-join_2), but this release of the"
                                + " LATERAL SNAPSHOT join library reads only version 1"
                                + " (stream-exec-lateral-snapshot-join_1): the plan was compiled"
                                + " by a later release. Load it with that release, or compile the"
                                + " statement again with this one.");
    }

    @Test
    void explainAndPrintJsonStringOfALoadedPlan() {
        String plan = streamingEnvironment().compilePlanSql(statement("inner_join")).asJsonString();
        CompiledPlan loaded =
                TableEnvironments.streaming().loadPlan(PlanReference.fromJsonString(plan));

        assertThat(loaded.explain())
                .startsWith("== Optimized Execution Plan ==")
                .contains("+- LateralSnapshotJoin(joinType=[InnerJoin]");
        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            loaded.printJsonString();
        } finally {
            System.setOut(out);
        }
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .contains("\"type\" : \"" + Plans.JOIN_TYPE + "\"");
    }

    /**
     * Batch mode plans a regular join, which Flink compiles as it compiles any batch plan; it does
     * not explain or run compiled plans in batch mode, with its own message.
     */
    @Test
    void batchModeKeepsFlinksMessage() {
        TableEnvironment env = TableEnvironments.batch();
        // Adaptive joins, which Flink may choose for files, are not written into plans at all.
        env.getConfig().set("table.optimizer.adaptive-broadcast-join.strategy", "none");
        env.getConfig().set("table.optimizer.skewed-join-optimization.strategy", "none");
        LateralSnapshot.install(env);
        String csv = Directories.filesystem(directory, "csv");
        env.executeSql(createTable("orders_b", BATCH_ORDERS_COLUMNS, csv));
        env.executeSql(createTable("rates_b", BATCH_RATES_COLUMNS, csv));
        env.executeSql(createTable("enriched", ENRICHED_COLUMNS, "'connector' = 'blackhole'"));

        CompiledPlan plan =
                env.compilePlanSql(
                        "INSERT INTO enriched SELECT o.order_id, o.currency, r.rate"
                                + " FROM orders_b AS o LEFT JOIN LATERAL SNAPSHOT(input => TABLE"
                                + " rates_b) AS r ON o.currency = r.currency");

        assertThat(plan.asJsonString()).doesNotContain("lateral-snapshot");
        assertThatThrownBy(plan::explain)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessage("The compiled plan feature is not supported in batch mode.");
    }

    private static String statement(String caseName) {
        return cases().stream()
                .filter(planCase -> planCase.name().equals(caseName))
                .findFirst()
                .orElseThrow()
                .statement();
    }

    /** The JSON of the plan's one LATERAL SNAPSHOT join. */
    private static ObjectNode joinNode(String plan) {
        List<ObjectNode> joins = Plans.joinNodes(plan);
        assertThat(joins).as("LATERAL SNAPSHOT joins in%n%s", plan).hasSize(1);
        return joins.get(0);
    }

    private static TableEnvironment streamingEnvironment() {
        TableEnvironment env = PlanEnvironments.streaming(directory);
        env.executeSql(createTable("enriched", ENRICHED_COLUMNS, "'connector' = 'blackhole'"));
        return env;
    }
}
