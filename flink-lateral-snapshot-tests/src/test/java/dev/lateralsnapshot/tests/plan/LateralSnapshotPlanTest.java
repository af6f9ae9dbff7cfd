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

import dev.lateralsnapshot.config.LateralSnapshotOptions;
import dev.lateralsnapshot.config.LateralSnapshotOptions.BuildDistribution;
import dev.lateralsnapshot.testutils.connectors.Directories;

import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plans of LATERAL SNAPSHOT joins, compared with golden files (see {@link GoldenFiles}, which
 * also says how to regenerate them): every syntax variant, also with a third table or a sub-query,
 * INNER and LEFT, equality, mixed and non-equality predicates, composite keys, a view and a CTE as
 * the build input, the changelog modes with and without a primary key on the build side and the
 * layout of the build side that follows from them, the broadcast build distribution, and the
 * drop-in jar's planner (which fuses the Calc after the join into the join in the execution plan).
 * Each file holds the statement and Flink's complete EXPLAIN output for it. Batch mode is in {@link
 * LateralSnapshotBatchPlanTest}.
 *
 * <p>The tables are those of the reference (docs/lateral-snapshot-join.md, "Syntax"), and a few
 * more. Plans do not depend on the clock: every query fixes {@code load_completed_time}, whose
 * default is the time of compilation. Planning never reads the tables' files, and their directory
 * is not in the plans.
 */
class LateralSnapshotPlanTest {

    private static final String SNAPSHOT_ARGUMENTS =
            "input => TABLE rates, on_time => DESCRIPTOR(update_time), load_completed_time =>"
                    + " CAST(TIMESTAMP '2026-01-02 00:00:00' AS TIMESTAMP_LTZ(3))";

    private static final String ORDERS = "SELECT o.order_id, o.currency, r.rate FROM orders AS o";

    private static final String ON_CURRENCY = " ON o.currency = r.currency";

    /** The query of {@link #ORDERS} with a third table joined in. */
    private static final String ORDERS_ITEMS =
            "SELECT o.order_id, o.currency, r.rate, i.item FROM orders AS o";

    private static final String IN_ITEMS =
            "o.order_id IN (SELECT order_id FROM items WHERE quantity > 1)";

    @TempDir static Path directory;

    /** One statement to explain: its name is the name of its golden file. */
    static final class PlanCase {
        final String name;
        final boolean dropIn;
        final BuildDistribution buildDistribution;
        final String statement;
        final ExplainDetail[] details;

        PlanCase(
                String name,
                boolean dropIn,
                BuildDistribution buildDistribution,
                String statement,
                ExplainDetail... details) {
            this.name = name;
            this.dropIn = dropIn;
            this.buildDistribution = buildDistribution;
            this.statement = statement;
            this.details = details;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static List<PlanCase> cases() {
        return List.of(
                stream(
                        "inner_join_lateral_snapshot",
                        ORDERS
                                + " JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r"
                                + ON_CURRENCY),
                stream(
                        "inner_join_lateral_table_snapshot",
                        ORDERS
                                + " JOIN LATERAL TABLE(SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ")) AS r"
                                + ON_CURRENCY),
                stream(
                        "cross_join_lateral_snapshot_where",
                        ORDERS
                                + " CROSS JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r WHERE o.currency = r.currency"),
                stream(
                        "comma_lateral_snapshot_where",
                        ORDERS
                                + ", LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r WHERE o.currency = r.currency"),
                // The WHERE clause sits above the join with the third table or the sub-query,
                // not directly above the SNAPSHOT join; it plans like the ON clause all the same.
                stream(
                        "inner_join_lateral_snapshot_third_table",
                        ORDERS_ITEMS
                                + " JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r"
                                + ON_CURRENCY
                                + " JOIN items AS i ON i.order_id = o.order_id"),
                stream(
                        "comma_lateral_snapshot_third_table_where",
                        ORDERS_ITEMS
                                + ", LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r, items AS i"
                                + " WHERE o.currency = r.currency AND i.order_id = o.order_id"),
                stream(
                        "cross_join_lateral_snapshot_third_table_where",
                        ORDERS_ITEMS
                                + " CROSS JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r JOIN items AS i ON i.order_id = o.order_id"
                                + " WHERE o.currency = r.currency"),
                stream(
                        "inner_join_lateral_snapshot_in_sub_query",
                        ORDERS
                                + " JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r"
                                + ON_CURRENCY
                                + " WHERE "
                                + IN_ITEMS),
                stream(
                        "comma_lateral_snapshot_in_sub_query_where",
                        ORDERS
                                + ", LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r WHERE o.currency = r.currency AND "
                                + IN_ITEMS),
                // A WHERE conjunct never goes into the ON clause of a LEFT join: it would turn
                // dropped rows into null-padded ones.
                stream(
                        "left_join_lateral_snapshot_third_table_where",
                        ORDERS_ITEMS
                                + " LEFT JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r"
                                + ON_CURRENCY
                                + ", items AS i"
                                + " WHERE i.order_id = o.order_id AND r.rate * 10 < o.order_id"),
                // The WHERE clause of the lower join sits above the upper one.
                stream(
                        "comma_lateral_snapshot_below_left_join_lateral_snapshot_where",
                        "SELECT o.order_id, r.rate, q.price FROM orders AS o, LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r LEFT JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS.replace("TABLE rates", "TABLE quotes")
                                + ") AS q ON q.currency = r.currency"
                                + " WHERE o.currency = r.currency"),
                stream(
                        "left_join_lateral_snapshot",
                        ORDERS
                                + " LEFT JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r"
                                + ON_CURRENCY),
                stream(
                        "left_join_lateral_table_snapshot",
                        ORDERS
                                + " LEFT JOIN LATERAL TABLE(SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ")) AS r"
                                + ON_CURRENCY),
                stream(
                        "inner_mixed_predicate",
                        ORDERS
                                + " JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r"
                                + ON_CURRENCY
                                + " AND r.rate * 10 < o.order_id"),
                stream(
                        "left_mixed_predicate",
                        ORDERS
                                + " LEFT JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r"
                                + ON_CURRENCY
                                + " AND r.rate * 10 < o.order_id"),
                stream(
                        "inner_no_equi_predicate",
                        ORDERS
                                + " JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r ON o.currency <> r.currency"),
                stream(
                        "left_no_equi_predicate",
                        ORDERS
                                + " LEFT JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r ON o.currency <> r.currency"),
                stream(
                        "inner_composite_key",
                        "SELECT t.trade_id, q.price FROM trades AS t JOIN LATERAL SNAPSHOT("
                                + "input => TABLE quotes, on_time => DESCRIPTOR(update_time),"
                                + " load_completed_time =>"
                                + " CAST(TIMESTAMP '2026-01-02 00:00:00' AS TIMESTAMP_LTZ(3))) AS q"
                                + " ON t.currency = q.currency AND t.venue = q.venue"),
                stream(
                        "view_as_input",
                        ORDERS
                                + " JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS.replace("TABLE rates", "TABLE positive_rates")
                                + ") AS r"
                                + ON_CURRENCY),
                stream(
                        "cte_as_input",
                        "WITH doubled_rates AS ("
                                + "SELECT currency, rate * 2 AS rate, update_time FROM rates) "
                                + ORDERS
                                + " JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS.replace("TABLE rates", "TABLE doubled_rates")
                                + ") AS r"
                                + ON_CURRENCY),
                stream(
                        "all_arguments",
                        ORDERS
                                + " LEFT JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ", load_completed_idle_timeout => INTERVAL '10' SECOND,"
                                + " state_ttl => INTERVAL '1' HOUR) AS r"
                                + ON_CURRENCY),
                stream(
                        "build_without_primary_key_changelog_mode",
                        ORDERS
                                + " JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r"
                                + ON_CURRENCY,
                        ExplainDetail.CHANGELOG_MODE),
                stream(
                        "build_with_primary_key_changelog_mode",
                        ORDERS
                                + " JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS.replace("TABLE rates", "TABLE rates_pk")
                                + ") AS r"
                                + ON_CURRENCY,
                        ExplainDetail.CHANGELOG_MODE),
                // The build side's primary key on the join key, within larger join keys, and
                // outside the join keys (see the tests of the build side's layout below).
                stream(
                        "primary_key_on_the_join_key_changelog_mode",
                        "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS.replace("TABLE rates", "TABLE rates_pk")
                                + ") AS r"
                                + ON_CURRENCY,
                        ExplainDetail.CHANGELOG_MODE),
                stream(
                        "primary_key_within_the_join_keys_changelog_mode",
                        "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS.replace("TABLE rates", "TABLE rates_pk")
                                + ") AS r"
                                + ON_CURRENCY
                                + " AND o.order_id = r.rate",
                        ExplainDetail.CHANGELOG_MODE),
                stream(
                        "primary_key_outside_the_join_keys_changelog_mode",
                        "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS.replace("TABLE rates", "TABLE rates_pk")
                                + ") AS r ON o.order_id = r.rate",
                        ExplainDetail.CHANGELOG_MODE),
                // The broadcast build distribution: no exchange under the probe input, a
                // broadcast one under the build input, with or without equality keys.
                broadcast(
                        "broadcast_inner_join",
                        ORDERS
                                + " JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r"
                                + ON_CURRENCY),
                broadcast(
                        "broadcast_left_mixed_predicate",
                        ORDERS
                                + " LEFT JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r"
                                + ON_CURRENCY
                                + " AND r.rate * 10 < o.order_id"),
                broadcast(
                        "broadcast_inner_no_equi_predicate",
                        ORDERS
                                + " JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r ON o.currency <> r.currency"),
                broadcast(
                        "broadcast_left_no_equi_predicate",
                        ORDERS
                                + " LEFT JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r ON o.currency <> r.currency"),
                broadcast(
                        "broadcast_build_with_primary_key_changelog_mode",
                        ORDERS
                                + " JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS.replace("TABLE rates", "TABLE rates_pk")
                                + ") AS r"
                                + ON_CURRENCY,
                        ExplainDetail.CHANGELOG_MODE),
                broadcast(
                        "broadcast_build_without_primary_key_changelog_mode",
                        ORDERS
                                + " JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r"
                                + ON_CURRENCY,
                        ExplainDetail.CHANGELOG_MODE),
                // The drop-in jar's planner fuses the Calc after the join into the join: the
                // physical plan is the same, the execution plan has the Calc in the join.
                dropIn(
                        "drop_in_left_join_projection_and_filter",
                        BuildDistribution.HASH,
                        "SELECT o.order_id, o.order_id * r.rate AS amount FROM orders AS o"
                                + " LEFT JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r"
                                + ON_CURRENCY
                                + " WHERE r.rate > 1"),
                dropIn(
                        "drop_in_broadcast_left_mixed_predicate",
                        BuildDistribution.BROADCAST,
                        ORDERS
                                + " LEFT JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS
                                + ") AS r"
                                + ON_CURRENCY
                                + " AND r.rate * 10 < o.order_id"),
                dropIn(
                        "drop_in_build_with_primary_key_changelog_mode",
                        BuildDistribution.HASH,
                        ORDERS
                                + " JOIN LATERAL SNAPSHOT("
                                + SNAPSHOT_ARGUMENTS.replace("TABLE rates", "TABLE rates_pk")
                                + ") AS r"
                                + ON_CURRENCY,
                        ExplainDetail.CHANGELOG_MODE));
    }

    private static PlanCase stream(String name, String statement, ExplainDetail... details) {
        return new PlanCase(name, false, BuildDistribution.HASH, statement, details);
    }

    private static PlanCase broadcast(String name, String statement, ExplainDetail... details) {
        return new PlanCase(name, false, BuildDistribution.BROADCAST, statement, details);
    }

    private static PlanCase dropIn(
            String name,
            BuildDistribution distribution,
            String statement,
            ExplainDetail... details) {
        return new PlanCase(name, true, distribution, statement, details);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void planMatchesGoldenFile(PlanCase planCase) throws Exception {
        TableEnvironment env = planCase.dropIn ? dropInEnvironment() : streamingEnvironment();
        env.getConfig()
                .set(LateralSnapshotOptions.BUILD_DISTRIBUTION, planCase.buildDistribution.value());
        Plans.explain(getClass(), planCase.name, env, planCase.statement, planCase.details);
    }

    /** The syntax variants of a join plan identically (docs/lateral-snapshot-join.md, "Syntax"). */
    @Test
    void syntaxVariantsPlanIdentically() {
        TableEnvironment env = streamingEnvironment();
        String inner = optimizedPlans(env, "inner_join_lateral_snapshot");
        for (String variant :
                List.of(
                        "inner_join_lateral_table_snapshot",
                        "cross_join_lateral_snapshot_where",
                        "comma_lateral_snapshot_where")) {
            assertThat(optimizedPlans(env, variant)).as(variant).isEqualTo(inner);
        }
        assertThat(optimizedPlans(env, "left_join_lateral_table_snapshot"))
                .isEqualTo(optimizedPlans(env, "left_join_lateral_snapshot"));
    }

    /**
     * The comma and CROSS JOIN forms take their join condition from a WHERE clause above a join
     * with a third table or a sub-query too, and then plan like the ON clause: the same join,
     * hash-partitioned on the equality keys, not at parallelism 1 with the filter after the join.
     */
    @Test
    void whereClauseAboveAThirdTableOrSubQueryPlansLikeTheOnClause() {
        TableEnvironment env = streamingEnvironment();
        String join = joinNode(optimizedPlans(env, "inner_join_lateral_snapshot"));
        String thirdTable = optimizedPlans(env, "inner_join_lateral_snapshot_third_table");
        String subQuery = optimizedPlans(env, "inner_join_lateral_snapshot_in_sub_query");
        for (String plan : List.of(thirdTable, subQuery)) {
            assertThat(joinNode(plan)).isEqualTo(join);
            assertThat(plan)
                    .contains("Exchange(distribution=[hash[currency0]])")
                    .contains("Exchange(distribution=[hash[currency]])")
                    .doesNotContain("distribution=[single]");
        }
        for (String variant :
                List.of(
                        "comma_lateral_snapshot_third_table_where",
                        "cross_join_lateral_snapshot_third_table_where")) {
            assertThat(optimizedPlans(env, variant)).as(variant).isEqualTo(thirdTable);
        }
        assertThat(optimizedPlans(env, "comma_lateral_snapshot_in_sub_query_where"))
                .isEqualTo(subQuery);
    }

    /**
     * A WHERE conjunct that compares both sides of a LEFT join stays above it: only the ON clause
     * is the join condition, and the null-padded probe rows are filtered out after the join.
     */
    @Test
    void whereClauseStaysAboveALeftJoin() {
        TableEnvironment env = streamingEnvironment();
        String plan = optimizedPlans(env, "left_join_lateral_snapshot_third_table_where");
        assertThat(joinNode(plan))
                .isEqualTo(joinNode(optimizedPlans(env, "left_join_lateral_snapshot")));
        assertThat(Plans.physicalPlan(plan))
                .containsOnlyOnce(
                        "Calc(select=[order_id, currency, rate],"
                                + " where=[<(*(rate, 10), order_id)])");
    }

    /**
     * The WHERE clause of a comma join below another SNAPSHOT join sits above the upper one; a LEFT
     * upper join too lets the conjuncts on its probe side through to the lower one.
     */
    @Test
    void whereClauseReachesALowerSnapshotJoin() {
        String plan =
                Plans.physicalPlan(
                        optimizedPlans(
                                streamingEnvironment(),
                                "comma_lateral_snapshot_below_left_join_lateral_snapshot_where"));
        assertThat(plan)
                .contains(
                        "LateralSnapshotJoin(joinType=[InnerJoin], where=[=(currency0, currency)],")
                .doesNotContain("distribution=[single]");
    }

    // ---- changelog modes and the build side's layout ----

    /**
     * A build side without a primary key sends retractions, and nothing drops its UPDATE_BEFORE
     * messages on their way to the join (its golden file shows the changelog modes): the join keeps
     * the build rows as a multiset.
     */
    @Test
    void buildWithoutPrimaryKeyReceivesRetractions() {
        String statement = planCase("build_without_primary_key_changelog_mode").statement;
        assertThat(
                        Plans.physicalPlan(
                                streamingEnvironment()
                                        .explainSql(statement, ExplainDetail.CHANGELOG_MODE)))
                .doesNotContain("DropUpdateBefore");
        assertThat(Plans.buildSideLayouts(streamingEnvironment(), statement))
                .containsExactly("MULTISET");
    }

    /**
     * A primary key on the join key makes the build side an upsert changelog, without UPDATE_BEFORE
     * (its golden file shows the changelog modes): the join keeps one row per key.
     */
    @Test
    void buildWithPrimaryKeyOnTheJoinKeyIsAnUpsertChangelog() {
        assertThat(layouts("primary_key_on_the_join_key_changelog_mode"))
                .containsExactly("ONE_ROW_PER_KEY");
    }

    /**
     * A primary key within larger join keys keeps the retractions (its golden file shows the
     * changelog modes), but the join still keeps one row per key: a key of the join holds at most
     * one row of the primary key.
     */
    @Test
    void primaryKeyWithinLargerJoinKeysKeepsRetractionsButOneRowPerKey() {
        assertThat(layouts("primary_key_within_the_join_keys_changelog_mode"))
                .containsExactly("ONE_ROW_PER_KEY");
    }

    /**
     * A primary key outside the join keys keeps the retractions (its golden file shows the
     * changelog modes), and a key of the join may hold several rows: a multiset.
     */
    @Test
    void primaryKeyOutsideTheJoinKeysIsAMultiset() {
        assertThat(layouts("primary_key_outside_the_join_keys_changelog_mode"))
                .containsExactly("MULTISET");
    }

    /** The build side's layout of each join of a case, in the plan's order. */
    private static List<String> layouts(String caseName) {
        return Plans.buildSideLayouts(streamingEnvironment(), planCase(caseName).statement);
    }

    /** The LATERAL SNAPSHOT join node of the physical plan of {@link #optimizedPlans}. */
    private static String joinNode(String optimizedPlans) {
        List<String> joins =
                Arrays.stream(Plans.physicalPlan(optimizedPlans).split("\n"))
                        .filter(line -> line.contains("LateralSnapshotJoin("))
                        .map(line -> line.substring(line.indexOf("LateralSnapshotJoin(")))
                        .collect(Collectors.toList());
        assertThat(joins).as("LATERAL SNAPSHOT joins in%n%s", optimizedPlans).hasSize(1);
        return joins.get(0);
    }

    /** The optimized physical and execution plans of a case, without its syntax tree. */
    private static String optimizedPlans(TableEnvironment env, String caseName) {
        String explained = env.explainSql(planCase(caseName).statement);
        return explained.substring(explained.indexOf("== Optimized Physical Plan =="));
    }

    private static PlanCase planCase(String name) {
        return cases().stream()
                .filter(candidate -> candidate.name.equals(name))
                .findFirst()
                .orElseThrow();
    }

    private static TableEnvironment streamingEnvironment() {
        return withMoreTables(PlanEnvironments.streaming(directory));
    }

    private static TableEnvironment dropInEnvironment() {
        return withMoreTables(PlanEnvironments.streamingDropIn(directory));
    }

    private static TableEnvironment withMoreTables(TableEnvironment env) {
        String debezium = Directories.filesystem(directory, "debezium-json");
        env.executeSql(
                "CREATE TABLE items (order_id BIGINT, item STRING, quantity INT)"
                        + " WITH ('connector' = 'datagen')");
        env.executeSql(
                "CREATE VIEW positive_rates AS"
                        + " SELECT currency, rate, update_time FROM rates WHERE rate > 0");
        // Two join keys: a currency is quoted on several venues.
        env.executeSql(
                "CREATE TABLE quotes (currency STRING, venue STRING, price DOUBLE,"
                        + " update_time TIMESTAMP(3), WATERMARK FOR update_time AS update_time"
                        + ") WITH ("
                        + debezium
                        + ")");
        env.executeSql(
                "CREATE TABLE trades (trade_id BIGINT, currency STRING, venue STRING,"
                        + " ts AS LOCALTIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND"
                        + ") WITH ('connector' = 'datagen')");
        return env;
    }
}
