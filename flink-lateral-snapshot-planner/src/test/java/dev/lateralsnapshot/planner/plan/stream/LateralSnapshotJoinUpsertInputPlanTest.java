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
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.execNodes;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.physicalPlan;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.planLines;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_PK_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Streaming plans of LATERAL SNAPSHOT joins whose build input has a primary key on the join key:
 * Flink asks such an input for an upsert changelog, which a filter on a column outside the key
 * cannot deliver (an update that leaves the filter would have to become a delete). The build input
 * must then keep its UPDATE_BEFORE messages, and the operator still keeps one row per key, as the
 * key lies within the join keys.
 */
class LateralSnapshotJoinUpsertInputPlanTest {

    private static final String RETRACTING_BUILD_EXCHANGE =
            "+- Exchange(distribution=[hash[currency]], changelogMode=[I,UB,UA,D])";

    private static final String UPSERTING_BUILD_EXCHANGE =
            "+- Exchange(distribution=[hash[currency]], changelogMode=[I,UA,D])";

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    @ParameterizedTest
    @ValueSource(
            strings = {
                "JOIN|r.rate > 1",
                "LEFT JOIN|r.rate > 1",
                "JOIN|r.rate > 1 AND r.currency <> 'X'",
                "JOIN|(r.rate > 1 OR r.currency = 'A')"
            })
    void filterOnANonKeyBuildColumnKeepsUpdateBefore(String joinAndFilter, TableEnvironment env) {
        String[] parts = joinAndFilter.split("\\|");
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o "
                        + parts[0]
                        + " LATERAL SNAPSHOT(input => TABLE rates_pk,"
                        + " on_time => DESCRIPTOR(update_time)) AS r"
                        + " ON o.currency = r.currency AND "
                        + parts[1];
        String plan = physicalPlan(env, query, ExplainDetail.CHANGELOG_MODE);
        assertRetractingBuildWithOneRowPerKey(env, query, plan);
        assertThat(planLines(plan, "Calc(select=[currency, rate, update_time], where=["))
                .as("the filter below the join, in%n%s", plan)
                .singleElement()
                .asString()
                .endsWith("changelogMode=[I,UB,UA,D])");
    }

    @Test
    void nonDeterminismCheckAcceptsTheRetractingBuildInput(TableEnvironment env) {
        env.getConfig().set("table.optimizer.non-deterministic-update.strategy", "TRY_RESOLVE");
        assertThat(
                        physicalPlan(
                                env,
                                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL"
                                        + " SNAPSHOT(input => TABLE rates_pk, on_time =>"
                                        + " DESCRIPTOR(update_time)) AS r"
                                        + " ON o.currency = r.currency AND r.rate > 1"))
                .contains("LateralSnapshotJoin(");
    }

    @Test
    void viewWithANonKeyFilterAsInput(TableEnvironment env) {
        env.executeSql("CREATE VIEW positive_rates AS SELECT * FROM rates_pk WHERE rate > 0");
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE"
                        + " positive_rates, on_time => DESCRIPTOR(update_time)) AS r"
                        + " ON o.currency = r.currency";
        String plan = physicalPlan(env, query, ExplainDetail.CHANGELOG_MODE);
        assertRetractingBuildWithOneRowPerKey(env, query, plan);
        assertThat(plan).contains("where=[>(rate, 0)]");
    }

    @Test
    void everyJoinWhoseBuildInputRefusesUpsertsKeepsUpdateBefore(TableEnvironment env) {
        env.executeSql("CREATE VIEW positive_rates AS SELECT * FROM rates_pk WHERE rate > 0");
        String query =
                "SELECT o.order_id, r.rate, p.rate FROM orders AS o"
                        + " JOIN LATERAL SNAPSHOT(input => TABLE positive_rates,"
                        + " on_time => DESCRIPTOR(update_time)) AS r ON o.currency = r.currency"
                        + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates_pk,"
                        + " on_time => DESCRIPTOR(update_time)) AS p"
                        + " ON o.currency = p.currency AND p.rate < 3";
        String plan = physicalPlan(env, query, ExplainDetail.CHANGELOG_MODE);
        assertThat(planLines(plan, "LateralSnapshotJoin(")).hasSize(2);
        assertThat(planLines(plan, "Exchange(distribution=[hash[currency]]"))
                .as("the build exchanges of both joins in%n%s", plan)
                .hasSize(2)
                .allMatch(line -> line.endsWith("changelogMode=[I,UB,UA,D])"));
        assertThat(plan).doesNotContain("DropUpdateBefore");
        assertThat(execNodes(env, query))
                .extracting(StreamExecLateralSnapshotJoin::getBuildSideLayout)
                .containsExactly(BuildSideLayout.ONE_ROW_PER_KEY, BuildSideLayout.ONE_ROW_PER_KEY);
    }

    @Test
    void filterOnTheKeyColumnStaysAnUpsertChangelog(TableEnvironment env) {
        // Every change of a key passes the filter or none does, so updates need no UPDATE_BEFORE.
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE"
                        + " rates_pk, on_time => DESCRIPTOR(update_time)) AS r"
                        + " ON o.currency = r.currency AND r.currency <> 'X'";
        String plan = physicalPlan(env, query, ExplainDetail.CHANGELOG_MODE);
        assertOneInsertOnlyJoin(plan);
        assertThat(planLines(plan, "+- Exchange("))
                .as("plan%n%s", plan)
                .containsExactly(UPSERTING_BUILD_EXCHANGE);
        assertThat(plan).contains("DropUpdateBefore(changelogMode=[I,UA,D])");
        assertOneRowPerKey(env, query);
    }

    @Test
    void upsertSourceWithANonKeyFilterIsNormalizedWithTheFilter(TableEnvironment env) {
        // Flink evaluates the filter in the ChangelogNormalize of an upsert source, which turns an
        // update that leaves the filter into a delete: the join gets an upsert changelog.
        env.executeSql(
                createTable(
                        "upsert_rates",
                        RATES_PK_COLUMNS,
                        "'connector' = 'values', 'changelog-mode' = 'I,UA,D'"));
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE"
                        + " upsert_rates, on_time => DESCRIPTOR(update_time)) AS r"
                        + " ON o.currency = r.currency AND r.rate > 1";
        String plan = physicalPlan(env, query, ExplainDetail.CHANGELOG_MODE);
        assertThat(planLines(plan, "+- Exchange(").get(0))
                .as("plan%n%s", plan)
                .isEqualTo(UPSERTING_BUILD_EXCHANGE);
        assertThat(plan)
                .contains(
                        "ChangelogNormalize(key=[currency], condition=[>(rate, 1)],"
                                + " changelogMode=[I,UA,D])");
        assertOneRowPerKey(env, query);
    }

    /**
     * The build input receives every change with UPDATE_BEFORE, none dropped, and the operator
     * keeps one row per key: the primary key lies within the join keys, and a filter passes or
     * drops a retraction together with the row it retracts, so a retraction still refers to the one
     * row of its key.
     */
    private static void assertRetractingBuildWithOneRowPerKey(
            TableEnvironment env, String query, String plan) {
        assertOneInsertOnlyJoin(plan);
        assertThat(planLines(plan, "+- Exchange("))
                .as("plan%n%s", plan)
                .containsExactly(RETRACTING_BUILD_EXCHANGE);
        assertThat(plan).doesNotContain("DropUpdateBefore");
        assertOneRowPerKey(env, query);
    }

    /** The plan has one LATERAL SNAPSHOT join, and its output is insert-only. */
    private static void assertOneInsertOnlyJoin(String plan) {
        assertThat(planLines(plan, "LateralSnapshotJoin("))
                .singleElement()
                .asString()
                .endsWith("changelogMode=[I])");
    }

    /** The query's one join keeps one build row per key. */
    private static void assertOneRowPerKey(TableEnvironment env, String query) {
        assertThat(execNodes(env, query))
                .singleElement()
                .extracting(StreamExecLateralSnapshotJoin::getBuildSideLayout)
                .isEqualTo(BuildSideLayout.ONE_ROW_PER_KEY);
    }
}
