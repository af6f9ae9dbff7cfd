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

package dev.lateralsnapshot.planner.plan.stream;

import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoin;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideLayout;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.execNodes;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.physicalPlan;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.planLines;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/** Streaming plans of LATERAL SNAPSHOT joins: syntax, exchanges, changelog modes, arguments. */
class LateralSnapshotJoinPlanTest {

    /** A fixed load completion time, so that plans do not depend on the clock. */
    private static final String LOAD_COMPLETED_TIME =
            "CAST(TIMESTAMP '2026-01-02 00:00:00' AS TIMESTAMP_LTZ(3))";

    private static final String ARGUMENTS =
            "input => TABLE rates, on_time => DESCRIPTOR(update_time), load_completed_time => "
                    + LOAD_COMPLETED_TIME;

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    @BeforeEach
    void createView(TableEnvironment env) {
        env.executeSql("CREATE VIEW rates_view AS SELECT * FROM rates");
    }

    // ---- syntax ----

    @ParameterizedTest
    @ValueSource(
            strings = {
                "FROM orders AS o JOIN LATERAL TABLE(SNAPSHOT("
                        + ARGUMENTS
                        + ")) AS r"
                        + " ON o.currency = r.currency",
                "FROM orders AS o CROSS JOIN LATERAL SNAPSHOT("
                        + ARGUMENTS
                        + ") AS r"
                        + " WHERE o.currency = r.currency",
                "FROM orders AS o CROSS JOIN LATERAL TABLE(SNAPSHOT("
                        + ARGUMENTS
                        + ")) AS r"
                        + " WHERE o.currency = r.currency",
                "FROM orders AS o, LATERAL SNAPSHOT("
                        + ARGUMENTS
                        + ") AS r"
                        + " WHERE o.currency = r.currency",
                "FROM orders AS o, LATERAL TABLE(SNAPSHOT("
                        + ARGUMENTS
                        + ")) AS r"
                        + " WHERE o.currency = r.currency",
                "FROM orders AS o JOIN LATERAL SNAPSHOT(load_completed_time => "
                        + LOAD_COMPLETED_TIME
                        + ", on_time => DESCRIPTOR(update_time), input => TABLE rates) AS r"
                        + " ON o.currency = r.currency",
                "FROM orders AS o JOIN LATERAL SNAPSHOT(TABLE rates, DESCRIPTOR(update_time), "
                        + LOAD_COMPLETED_TIME
                        + ") AS r ON o.currency = r.currency",
                "from orders as o join lateral snapshot("
                        + ARGUMENTS
                        + ") as r"
                        + " on o.currency = r.currency",
                "FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE rates_view,"
                        + " on_time => DESCRIPTOR(update_time), load_completed_time => "
                        + LOAD_COMPLETED_TIME
                        + ") AS r ON o.currency = r.currency",
                "FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE rr,"
                        + " on_time => DESCRIPTOR(update_time), load_completed_time => "
                        + LOAD_COMPLETED_TIME
                        + ") AS r ON o.currency = r.currency"
            })
    void everySyntaxPlansLikeTheCanonicalForm(String from, TableEnvironment env) {
        String cte = from.contains("TABLE rr") ? "WITH rr AS (SELECT * FROM rates) " : "";
        String canonical =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT("
                                + ARGUMENTS
                                + ") AS r ON o.currency = r.currency");
        assertThat(canonical).contains("LateralSnapshotJoin(joinType=[InnerJoin]");
        assertThat(physicalPlan(env, cte + "SELECT o.order_id, r.rate " + from))
                .isEqualTo(canonical);
    }

    @Test
    void columnAliasesOfTheSnapshot(TableEnvironment env) {
        String plan =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.c, r.x FROM orders AS o LEFT JOIN LATERAL SNAPSHOT("
                                + ARGUMENTS
                                + ") AS r(c, x, t) ON o.currency = r.c");
        assertThat(plan).contains("LateralSnapshotJoin(joinType=[LeftOuterJoin]");
    }

    @Test
    void chainedJoinsAreBothCaptured(TableEnvironment env) {
        String plan =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.rate, p.rate FROM orders AS o"
                                + " JOIN LATERAL SNAPSHOT("
                                + ARGUMENTS
                                + ") AS r ON o.currency = r.currency"
                                + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates_pk,"
                                + " on_time => DESCRIPTOR(update_time)) AS p"
                                + " ON o.currency = p.currency AND r.rate < p.rate");
        assertThat(planLines(plan, "LateralSnapshotJoin(")).hasSize(2);
    }

    // ---- the node ----

    @Test
    void explainShowsTheJoinAndItsArguments(TableEnvironment env) {
        String plan =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.rate FROM orders AS o LEFT JOIN LATERAL SNAPSHOT("
                                + ARGUMENTS
                                + ", load_completed_idle_timeout => INTERVAL '10' SECOND,"
                                + " state_ttl => INTERVAL '1' HOUR) AS r"
                                + " ON o.currency = r.currency");
        assertThat(planLines(plan, "LateralSnapshotJoin("))
                .containsExactly(
                        "+- LateralSnapshotJoin(joinType=[LeftOuterJoin],"
                                + " where=[=(currency0, currency)],"
                                + " select=[order_id, currency0, currency, rate, update_time],"
                                + " on_time=[update_time],"
                                + " load_completed_time=[2026-01-02T00:00:00Z],"
                                + " load_completed_idle_timeout=[10 s], state_ttl=[1 h])");
    }

    @Test
    void hashExchangesOnTheEqualityKeys(TableEnvironment env) {
        String plan =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT("
                                + ARGUMENTS
                                + ") AS r ON o.currency = r.currency AND o.order_id >= 0"
                                + " AND r.rate < o.order_id");
        assertThat(planLines(plan, "Exchange("))
                .containsExactly(
                        ":- Exchange(distribution=[hash[currency0]])",
                        "+- Exchange(distribution=[hash[currency]])");
        // The probe-only conjunct went below the join; the mixed one stays in it.
        assertThat(planLines(plan, "LateralSnapshotJoin(").get(0))
                .contains("where=[AND(=(currency0, currency), <(rate, order_id))]");
        assertThat(plan).contains("where=[>=(order_id, 0)]");
    }

    @Test
    void singletonExchangesWithoutEqualityKeys(TableEnvironment env) {
        String plan =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT("
                                + ARGUMENTS
                                + ") AS r ON o.currency <> r.currency");
        assertThat(planLines(plan, "Exchange("))
                .containsExactly(
                        ":- Exchange(distribution=[single])", "+- Exchange(distribution=[single])");
    }

    @ParameterizedTest
    @ValueSource(strings = {"JOIN", "LEFT JOIN"})
    void conditionWithoutBuildColumns(String join, TableEnvironment env) {
        // A LEFT join keeps a probe-only condition in the join; TRUE references no column at all.
        for (String condition : List.of("TRUE", "o.order_id > 5")) {
            String plan =
                    physicalPlan(
                            env,
                            "SELECT o.order_id, r.rate FROM orders AS o "
                                    + join
                                    + " LATERAL SNAPSHOT("
                                    + ARGUMENTS
                                    + ") AS r ON "
                                    + condition);
            assertThat(planLines(plan, "Exchange("))
                    .as("plan of ON %s%n%s", condition, plan)
                    .containsExactly(
                            ":- Exchange(distribution=[single])",
                            "+- Exchange(distribution=[single])");
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "UPPER(o.currency) = r.currency AND o.order_id = r.rate",
                "o.currency = UPPER(r.currency)",
                "o.order_id = CAST(r.rate AS BIGINT)",
                "o.order_id + 1 = CAST(r.rate * 2 AS BIGINT)"
            })
    void computedAndCoercedEqualityKeysStillPartition(String condition, TableEnvironment env) {
        // Computed keys on the build side arrive as a projection between the join and the scan.
        String plan =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.rate FROM orders AS o LEFT JOIN LATERAL SNAPSHOT("
                                + ARGUMENTS
                                + ") AS r ON "
                                + condition);
        assertThat(planLines(plan, "Exchange(distribution=[hash[")).hasSize(2);
        assertThat(planLines(plan, "LateralSnapshotJoin(").get(0))
                .contains("on_time=[update_time]");
    }

    @Test
    void buildConjunctsOfALeftJoinGoBelowTheJoin(TableEnvironment env) {
        String plan =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.rate FROM orders AS o LEFT JOIN LATERAL SNAPSHOT("
                                + ARGUMENTS
                                + ") AS r ON o.currency = r.currency AND r.rate > 1"
                                + " AND o.order_id > 5");
        // The probe conjunct must stay: a LEFT join emits every probe row.
        assertThat(planLines(plan, "LateralSnapshotJoin(").get(0))
                .contains("where=[AND(=(currency0, currency), >(order_id, 5))]");
        assertThat(plan).contains("where=[>(rate, 1)]");
    }

    @Test
    void unusedBuildColumnsArePrunedAndOnTimeFollows(
            TableEnvironment env, @TempDir Path directory) {
        env.executeSql(
                createTable(
                        "wide_rates",
                        "note STRING, " + RATES_COLUMNS,
                        Directories.filesystem(directory, "debezium-json")));
        String plan =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input"
                                + " => TABLE wide_rates, on_time => DESCRIPTOR(update_time)) AS r"
                                + " ON o.currency = r.currency");
        assertThat(planLines(plan, "LateralSnapshotJoin(").get(0))
                .contains("select=[order_id, currency0, currency, rate, update_time]")
                .contains("on_time=[update_time]");
        assertThat(plan).contains("fields=[currency, rate, update_time]");
        assertThat(
                        execNodes(
                                env,
                                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL"
                                        + " SNAPSHOT(input => TABLE wide_rates, on_time =>"
                                        + " DESCRIPTOR(update_time)) AS r ON o.currency = r.currency"))
                .singleElement()
                .extracting(StreamExecLateralSnapshotJoin::getBuildTimeIndex)
                .isEqualTo(2);
    }

    @Test
    void buildTimeAttributesBecomePlainTimestamps(TableEnvironment env) {
        String plan =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.update_time FROM orders AS o JOIN LATERAL SNAPSHOT("
                                + ARGUMENTS
                                + ") AS r ON o.currency = r.currency");
        assertThat(plan).contains("CAST(update_time AS TIMESTAMP(3)) AS update_time");
    }

    @Test
    void probeTimeAttributesStay(TableEnvironment env) {
        env.executeSql(
                "CREATE VIEW enriched AS SELECT o.ts, r.rate FROM orders AS o"
                        + " JOIN LATERAL SNAPSHOT("
                        + ARGUMENTS
                        + ") AS r ON o.currency = r.currency");
        // MAX(rate) rather than MAX of a build timestamp: Flink 2.3 fails on the latter with its
        // own temporal join too (PullUpWindowTableFunctionIntoWindowAggregateRule).
        String plan =
                physicalPlan(
                        env,
                        "SELECT window_start, COUNT(*), MAX(rate) FROM TABLE(TUMBLE("
                                + "TABLE enriched, DESCRIPTOR(ts), INTERVAL '1' MINUTE))"
                                + " GROUP BY window_start, window_end");
        assertThat(plan).contains("WindowAggregate(");
    }

    @Test
    void defaultsOfTheArguments(TableEnvironment env) {
        env.getConfig().set("table.exec.state.ttl", "30 min");
        long before = System.currentTimeMillis();
        String line =
                planLines(
                                physicalPlan(env, SnapshotTestEnvironments.SECTION_1_QUERY),
                                "LateralSnapshotJoin(")
                        .get(0);
        long after = System.currentTimeMillis();
        assertThat(line).contains("state_ttl=[30 min]").doesNotContain("load_completed_idle");
        Matcher time = Pattern.compile("load_completed_time=\\[([^]]+)]").matcher(line);
        assertThat(time.find()).isTrue();
        assertThat(Instant.parse(time.group(1)).toEpochMilli()).isBetween(before, after);
    }

    @Test
    void miniBatchDoesNotDisturbTheJoin(TableEnvironment env) {
        env.getConfig().set("table.exec.mini-batch.enabled", "true");
        env.getConfig().set("table.exec.mini-batch.allow-latency", "1 s");
        env.getConfig().set("table.exec.mini-batch.size", "100");
        assertThat(physicalPlan(env, SnapshotTestEnvironments.SECTION_1_QUERY))
                .contains("LateralSnapshotJoin(");
    }

    // ---- changelog modes and the build side layout ----

    @Test
    void buildWithoutPrimaryKeyReceivesRetractions(TableEnvironment env) {
        String plan =
                physicalPlan(
                        env,
                        SnapshotTestEnvironments.SECTION_1_QUERY,
                        ExplainDetail.CHANGELOG_MODE);
        assertThat(planLines(plan, "LateralSnapshotJoin(").get(0)).endsWith("changelogMode=[I])");
        assertThat(planLines(plan, "Exchange("))
                .containsExactly(
                        ":- Exchange(distribution=[hash[currency0]], changelogMode=[I])",
                        "+- Exchange(distribution=[hash[currency]], changelogMode=[I,UB,UA,D])");
        assertThat(plan).doesNotContain("DropUpdateBefore");
        assertThat(execNodes(env, SnapshotTestEnvironments.SECTION_1_QUERY))
                .singleElement()
                .extracting(StreamExecLateralSnapshotJoin::getBuildSideLayout)
                .isEqualTo(BuildSideLayout.MULTISET);
    }

    @Test
    void buildWithPrimaryKeyOnTheJoinKeyIsAnUpsertChangelog(TableEnvironment env) {
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE"
                        + " rates_pk, on_time => DESCRIPTOR(update_time)) AS r"
                        + " ON o.currency = r.currency";
        String plan = physicalPlan(env, query, ExplainDetail.CHANGELOG_MODE);
        assertThat(planLines(plan, "LateralSnapshotJoin(").get(0)).endsWith("changelogMode=[I])");
        assertThat(planLines(plan, "Exchange("))
                .containsExactly(
                        ":- Exchange(distribution=[hash[currency0]], changelogMode=[I])",
                        "+- Exchange(distribution=[hash[currency]], changelogMode=[I,UA,D])");
        assertThat(execNodes(env, query))
                .singleElement()
                .extracting(StreamExecLateralSnapshotJoin::getBuildSideLayout)
                .isEqualTo(BuildSideLayout.ONE_ROW_PER_KEY);
    }

    @Test
    void primaryKeyWithinLargerJoinKeysKeepsRetractionsButOneRowPerKey(TableEnvironment env) {
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE"
                        + " rates_pk, on_time => DESCRIPTOR(update_time)) AS r"
                        + " ON o.currency = r.currency AND o.order_id = r.rate";
        String plan = physicalPlan(env, query, ExplainDetail.CHANGELOG_MODE);
        assertThat(planLines(plan, "+- Exchange("))
                .singleElement()
                .asString()
                .endsWith("changelogMode=[I,UB,UA,D])");
        assertThat(execNodes(env, query))
                .singleElement()
                .extracting(StreamExecLateralSnapshotJoin::getBuildSideLayout)
                .isEqualTo(BuildSideLayout.ONE_ROW_PER_KEY);
    }

    @Test
    void primaryKeyOutsideTheJoinKeysIsAMultiset(TableEnvironment env) {
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE"
                        + " rates_pk, on_time => DESCRIPTOR(update_time)) AS r"
                        + " ON o.order_id = r.rate";
        String plan = physicalPlan(env, query, ExplainDetail.CHANGELOG_MODE);
        assertThat(planLines(plan, "+- Exchange("))
                .singleElement()
                .asString()
                .endsWith("changelogMode=[I,UB,UA,D])");
        List<StreamExecLateralSnapshotJoin> joins = execNodes(env, query);
        assertThat(joins)
                .singleElement()
                .extracting(StreamExecLateralSnapshotJoin::getBuildSideLayout)
                .isEqualTo(BuildSideLayout.MULTISET);
    }
}
