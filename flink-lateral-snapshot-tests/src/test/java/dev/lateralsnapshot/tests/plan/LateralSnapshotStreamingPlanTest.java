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

import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static dev.lateralsnapshot.tests.plan.Plans.compiledJoinNodes;
import static dev.lateralsnapshot.tests.plan.Plans.explain;
import static dev.lateralsnapshot.tests.plan.Plans.physicalPlan;
import static dev.lateralsnapshot.tests.plan.Plans.planLines;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Streaming plans of LATERAL SNAPSHOT joins: syntax, exchanges, conditions, columns and time
 * attributes, arguments. Each statement's plan is compared with its golden file (see {@link
 * GoldenFiles}, which also says how to regenerate them); what a golden file does not show plainly
 * is checked here: that two plans are the same, that a node is absent, how many joins a plan has,
 * and what only the join's node holds.
 *
 * <p>The tables are those of {@link PlanEnvironments#streaming}. Plans do not depend on the clock:
 * every statement fixes {@code load_completed_time}, whose default is the time of compilation,
 * except in the test of that default, whose golden file holds a placeholder for the time.
 */
class LateralSnapshotStreamingPlanTest {

    /** A fixed load completion time, so that plans do not depend on the clock. */
    private static final String LOAD_COMPLETED_TIME =
            "CAST(TIMESTAMP '2026-01-02 00:00:00' AS TIMESTAMP_LTZ(3))";

    private static final String ARGUMENTS =
            "input => TABLE rates, on_time => DESCRIPTOR(update_time), load_completed_time => "
                    + LOAD_COMPLETED_TIME;

    /** The INNER join of the release-testing plan's first section. */
    private static final String SECTION_1_QUERY =
            "SELECT o.order_id, o.currency, r.rate FROM orders AS o"
                    + " JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                    + " on_time => DESCRIPTOR(update_time)) AS r"
                    + " ON o.currency = r.currency";

    /** {@link #SECTION_1_QUERY} with the fixed load completion time. */
    private static final String SECTION_1_QUERY_AT_A_FIXED_TIME =
            "SELECT o.order_id, o.currency, r.rate FROM orders AS o"
                    + " JOIN LATERAL SNAPSHOT("
                    + ARGUMENTS
                    + ") AS r"
                    + " ON o.currency = r.currency";

    /** Stands for the wall-clock time of planning in the golden files. */
    private static final String TIME_OF_PLANNING = "<the time of planning>";

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            new TableEnvironmentExtension(PlanEnvironments::streaming);

    @BeforeEach
    void createView(TableEnvironment env) {
        env.executeSql("CREATE VIEW rates_view AS SELECT * FROM rates");
    }

    // ---- syntax ----

    static Stream<Arguments> syntaxVariants() {
        return Stream.of(
                arguments(
                        "syntax_lateral_table",
                        "FROM orders AS o JOIN LATERAL TABLE(SNAPSHOT("
                                + ARGUMENTS
                                + ")) AS r"
                                + " ON o.currency = r.currency"),
                arguments(
                        "syntax_cross_join_where",
                        "FROM orders AS o CROSS JOIN LATERAL SNAPSHOT("
                                + ARGUMENTS
                                + ") AS r"
                                + " WHERE o.currency = r.currency"),
                arguments(
                        "syntax_cross_join_lateral_table_where",
                        "FROM orders AS o CROSS JOIN LATERAL TABLE(SNAPSHOT("
                                + ARGUMENTS
                                + ")) AS r"
                                + " WHERE o.currency = r.currency"),
                arguments(
                        "syntax_comma_where",
                        "FROM orders AS o, LATERAL SNAPSHOT("
                                + ARGUMENTS
                                + ") AS r"
                                + " WHERE o.currency = r.currency"),
                arguments(
                        "syntax_comma_lateral_table_where",
                        "FROM orders AS o, LATERAL TABLE(SNAPSHOT("
                                + ARGUMENTS
                                + ")) AS r"
                                + " WHERE o.currency = r.currency"),
                arguments(
                        "syntax_arguments_in_another_order",
                        "FROM orders AS o JOIN LATERAL SNAPSHOT(load_completed_time => "
                                + LOAD_COMPLETED_TIME
                                + ", on_time => DESCRIPTOR(update_time), input => TABLE rates) AS r"
                                + " ON o.currency = r.currency"),
                arguments(
                        "syntax_positional_arguments",
                        "FROM orders AS o JOIN LATERAL SNAPSHOT(TABLE rates, DESCRIPTOR(update_time), "
                                + LOAD_COMPLETED_TIME
                                + ") AS r ON o.currency = r.currency"),
                arguments(
                        "syntax_lower_case",
                        "from orders as o join lateral snapshot("
                                + ARGUMENTS
                                + ") as r"
                                + " on o.currency = r.currency"),
                arguments(
                        "syntax_view_as_input",
                        "FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE rates_view,"
                                + " on_time => DESCRIPTOR(update_time), load_completed_time => "
                                + LOAD_COMPLETED_TIME
                                + ") AS r ON o.currency = r.currency"),
                arguments(
                        "syntax_cte_as_input",
                        "FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE rr,"
                                + " on_time => DESCRIPTOR(update_time), load_completed_time => "
                                + LOAD_COMPLETED_TIME
                                + ") AS r ON o.currency = r.currency"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("syntaxVariants")
    void everySyntaxPlansLikeTheCanonicalForm(String name, String from, TableEnvironment env)
            throws Exception {
        String cte = from.contains("TABLE rr") ? "WITH rr AS (SELECT * FROM rates) " : "";
        String canonical =
                physicalPlan(
                        explain(
                                getClass(),
                                "syntax_canonical",
                                env,
                                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT("
                                        + ARGUMENTS
                                        + ") AS r ON o.currency = r.currency"));
        assertThat(
                        physicalPlan(
                                explain(
                                        getClass(),
                                        name,
                                        env,
                                        cte + "SELECT o.order_id, r.rate " + from)))
                .isEqualTo(canonical);
    }

    @Test
    void columnAliasesOfTheSnapshot(TableEnvironment env) throws Exception {
        explain(
                getClass(),
                "column_aliases",
                env,
                "SELECT o.order_id, r.c, r.x FROM orders AS o LEFT JOIN LATERAL SNAPSHOT("
                        + ARGUMENTS
                        + ") AS r(c, x, t) ON o.currency = r.c");
    }

    @Test
    void chainedJoinsAreBothCaptured(TableEnvironment env) throws Exception {
        String plan =
                physicalPlan(
                        explain(
                                getClass(),
                                "chained_joins",
                                env,
                                "SELECT o.order_id, r.rate, p.rate FROM orders AS o"
                                        + " JOIN LATERAL SNAPSHOT("
                                        + ARGUMENTS
                                        + ") AS r ON o.currency = r.currency"
                                        + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates_pk,"
                                        + " on_time => DESCRIPTOR(update_time),"
                                        + " load_completed_time => "
                                        + LOAD_COMPLETED_TIME
                                        + ") AS p"
                                        + " ON o.currency = p.currency AND r.rate < p.rate"));
        assertThat(planLines(plan, "LateralSnapshotJoin(")).hasSize(2);
    }

    // ---- the node ----

    @Test
    void explainShowsTheJoinAndItsArguments(TableEnvironment env) throws Exception {
        explain(
                getClass(),
                "all_arguments",
                env,
                "SELECT o.order_id, r.rate FROM orders AS o LEFT JOIN LATERAL SNAPSHOT("
                        + ARGUMENTS
                        + ", load_completed_idle_timeout => INTERVAL '10' SECOND,"
                        + " state_ttl => INTERVAL '1' HOUR) AS r"
                        + " ON o.currency = r.currency");
    }

    /** The option that ends the load phase with the build input's backlog shows in the join. */
    @Test
    void explainShowsTheLoadPhaseEndingOnCaughtUp(TableEnvironment env) throws Exception {
        env.getConfig().set("table.exec.lateral-snapshot.load-completed-on-caught-up", "true");
        explain(
                getClass(),
                "load_completed_on_caught_up",
                env,
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT("
                        + ARGUMENTS
                        + ") AS r ON o.currency = r.currency");
    }

    /**
     * Both inputs are hashed on the equality keys; the probe-only conjunct goes below the join, the
     * mixed one stays in it.
     */
    @Test
    void hashExchangesOnTheEqualityKeys(TableEnvironment env) throws Exception {
        explain(
                getClass(),
                "hash_exchanges",
                env,
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT("
                        + ARGUMENTS
                        + ") AS r ON o.currency = r.currency AND o.order_id >= 0"
                        + " AND r.rate < o.order_id");
    }

    @Test
    void singletonExchangesWithoutEqualityKeys(TableEnvironment env) throws Exception {
        explain(
                getClass(),
                "singleton_exchanges",
                env,
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT("
                        + ARGUMENTS
                        + ") AS r ON o.currency <> r.currency");
    }

    /**
     * Singleton exchanges for a condition without build columns: a LEFT join keeps a probe-only
     * condition in the join; TRUE references no column at all.
     */
    @ParameterizedTest
    @ValueSource(strings = {"JOIN", "LEFT JOIN"})
    void conditionWithoutBuildColumns(String join, TableEnvironment env) throws Exception {
        String joinName = join.equals("JOIN") ? "inner" : "left";
        for (String condition : List.of("TRUE", "o.order_id > 5")) {
            explain(
                    getClass(),
                    "condition_without_build_columns_"
                            + joinName
                            + (condition.equals("TRUE") ? "_true" : "_probe_only"),
                    env,
                    "SELECT o.order_id, r.rate FROM orders AS o "
                            + join
                            + " LATERAL SNAPSHOT("
                            + ARGUMENTS
                            + ") AS r ON "
                            + condition);
        }
    }

    /**
     * A filter that pins the probe's join key to a constant leaves the equality in the join, so the
     * join still hashes both inputs on it: the probe side sends the constant, the build side its
     * key.
     */
    @ParameterizedTest
    @ValueSource(strings = {"JOIN", "LEFT JOIN"})
    void equalityKeyPinnedToAConstantStillPartitions(String join, TableEnvironment env)
            throws Exception {
        String plan =
                physicalPlan(
                        explain(
                                getClass(),
                                "equality_key_pinned_to_a_constant_"
                                        + (join.equals("JOIN") ? "inner" : "left"),
                                env,
                                "SELECT o.order_id, r.rate FROM orders AS o "
                                        + join
                                        + " LATERAL SNAPSHOT("
                                        + ARGUMENTS
                                        + ") AS r ON o.currency = r.currency"
                                        + " WHERE o.currency = 'A'"));
        assertThat(planLines(plan, "Exchange("))
                .containsExactly(
                        ":- Exchange(distribution=[hash[currency0]])",
                        "+- Exchange(distribution=[hash[currency]])");
    }

    static Stream<Arguments> computedAndCoercedEqualityKeys() {
        return Stream.of(
                arguments(
                        "computed_probe_key_and_coerced_build_key",
                        "UPPER(o.currency) = r.currency AND o.order_id = r.rate"),
                arguments("computed_build_key", "o.currency = UPPER(r.currency)"),
                arguments("coerced_build_key", "o.order_id = CAST(r.rate AS BIGINT)"),
                arguments(
                        "computed_and_coerced_keys",
                        "o.order_id + 1 = CAST(r.rate * 2 AS BIGINT)"));
    }

    /**
     * Both inputs are hashed, on computed and coerced keys too, and the join keeps its {@code
     * on_time}: computed keys on the build side arrive as a projection between the join and the
     * scan.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("computedAndCoercedEqualityKeys")
    void computedAndCoercedEqualityKeysStillPartition(
            String name, String condition, TableEnvironment env) throws Exception {
        explain(
                getClass(),
                name,
                env,
                "SELECT o.order_id, r.rate FROM orders AS o LEFT JOIN LATERAL SNAPSHOT("
                        + ARGUMENTS
                        + ") AS r ON "
                        + condition);
    }

    /**
     * The build conjunct of a LEFT join goes below the join; the probe conjunct must stay in it: a
     * LEFT join emits every probe row.
     */
    @Test
    void buildConjunctsOfALeftJoinGoBelowTheJoin(TableEnvironment env) throws Exception {
        explain(
                getClass(),
                "left_join_build_conjunct",
                env,
                "SELECT o.order_id, r.rate FROM orders AS o LEFT JOIN LATERAL SNAPSHOT("
                        + ARGUMENTS
                        + ") AS r ON o.currency = r.currency AND r.rate > 1"
                        + " AND o.order_id > 5");
    }

    /**
     * The scan reads only the build columns the query uses, and the join's {@code on_time} follows
     * its column to its new position, which the join's node holds.
     */
    @Test
    void unusedBuildColumnsArePrunedAndOnTimeFollows(TableEnvironment env, @TempDir Path directory)
            throws Exception {
        env.executeSql(
                createTable(
                        "wide_rates",
                        "note STRING, " + RATES_COLUMNS,
                        Directories.filesystem(directory, "debezium-json")));
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input"
                        + " => TABLE wide_rates, on_time => DESCRIPTOR(update_time),"
                        + " load_completed_time => "
                        + LOAD_COMPLETED_TIME
                        + ") AS r ON o.currency = r.currency";
        explain(getClass(), "unused_build_columns", env, query);
        assertThat(compiledJoinNodes(env, query))
                .singleElement()
                .extracting(join -> join.get("rightTimeAttributeIndex").asInt())
                .isEqualTo(2);
    }

    /**
     * {@code on_time} names a virtual metadata column of the build table, as the tutorials do with
     * the files' and the records' timestamps; the column stays a column of the join's build rows,
     * also where {@code SELECT *} would leave it out.
     */
    @Test
    void onTimeOnAVirtualMetadataColumn(TableEnvironment env, @TempDir Path directory)
            throws Exception {
        env.executeSql(
                createTable(
                        "rates_by_file_time",
                        "currency STRING, rate DOUBLE,"
                                + " update_time TIMESTAMP_LTZ(3) METADATA FROM"
                                + " 'file.modification-time' VIRTUAL,"
                                + " WATERMARK FOR update_time AS update_time",
                        Directories.filesystem(directory, "csv")));
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input"
                        + " => TABLE rates_by_file_time, on_time => DESCRIPTOR(update_time),"
                        + " load_completed_time => "
                        + LOAD_COMPLETED_TIME
                        + ") AS r ON o.currency = r.currency";
        String plan =
                physicalPlan(explain(getClass(), "on_time_virtual_metadata_column", env, query));
        assertThat(compiledJoinNodes(env, query))
                .singleElement()
                .extracting(join -> join.get("rightTimeAttributeIndex").asInt())
                .isEqualTo(2);

        env.getConfig()
                .set("table.column-expansion-strategy", "EXCLUDE_DEFAULT_VIRTUAL_METADATA_COLUMNS");
        assertThat(physicalPlan(env.explainSql(query))).isEqualTo(plan);
    }

    @Test
    void buildTimeAttributesBecomePlainTimestamps(TableEnvironment env) throws Exception {
        explain(
                getClass(),
                "build_time_attribute",
                env,
                "SELECT o.order_id, r.update_time FROM orders AS o JOIN LATERAL SNAPSHOT("
                        + ARGUMENTS
                        + ") AS r ON o.currency = r.currency");
    }

    /**
     * The probe's time attribute stays one, so a window can follow the join. MAX(rate) rather than
     * MAX of a build timestamp: Flink 2.3 fails on the latter with its own temporal join too
     * (PullUpWindowTableFunctionIntoWindowAggregateRule).
     */
    @Test
    void probeTimeAttributesStay(TableEnvironment env) throws Exception {
        env.executeSql(
                "CREATE VIEW enriched AS SELECT o.ts, r.rate FROM orders AS o"
                        + " JOIN LATERAL SNAPSHOT("
                        + ARGUMENTS
                        + ") AS r ON o.currency = r.currency");
        explain(
                getClass(),
                "probe_time_attribute_in_a_window",
                env,
                "SELECT window_start, COUNT(*), MAX(rate) FROM TABLE(TUMBLE("
                        + "TABLE enriched, DESCRIPTOR(ts), INTERVAL '1' MINUTE))"
                        + " GROUP BY window_start, window_end");
    }

    /**
     * Without the optional arguments, the join takes its state TTL from {@code
     * table.exec.state.ttl}, has no idle timeout, and completes its load at the time of planning,
     * which its golden file shows as {@value #TIME_OF_PLANNING}.
     */
    @Test
    void defaultsOfTheArguments(TableEnvironment env) throws Exception {
        env.getConfig().set("table.exec.state.ttl", "30 min");
        long before = System.currentTimeMillis();
        String explained = env.explainSql(SECTION_1_QUERY);
        long after = System.currentTimeMillis();

        String line = planLines(physicalPlan(explained), "LateralSnapshotJoin(").get(0);
        assertThat(line).doesNotContain("load_completed_idle");
        Matcher time = Pattern.compile("load_completed_time=\\[([^]]+)]").matcher(line);
        assertThat(time.find()).isTrue();
        assertThat(Instant.parse(time.group(1)).toEpochMilli()).isBetween(before, after);
        GoldenFiles.assertMatches(
                getClass(),
                "default_arguments",
                Plans.goldenText(
                        SECTION_1_QUERY,
                        explained.replace(
                                "load_completed_time=[" + time.group(1) + "]",
                                "load_completed_time=[" + TIME_OF_PLANNING + "]")));
    }

    @Test
    void miniBatchDoesNotDisturbTheJoin(TableEnvironment env) throws Exception {
        env.getConfig().set("table.exec.mini-batch.enabled", "true");
        env.getConfig().set("table.exec.mini-batch.allow-latency", "1 s");
        env.getConfig().set("table.exec.mini-batch.size", "100");
        explain(getClass(), "mini_batch", env, SECTION_1_QUERY_AT_A_FIXED_TIME);
    }
}
