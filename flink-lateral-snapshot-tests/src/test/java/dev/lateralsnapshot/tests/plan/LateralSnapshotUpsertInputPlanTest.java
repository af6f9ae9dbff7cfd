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

import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static dev.lateralsnapshot.tests.plan.Plans.buildSideLayouts;
import static dev.lateralsnapshot.tests.plan.Plans.explain;
import static dev.lateralsnapshot.tests.plan.Plans.physicalPlan;
import static dev.lateralsnapshot.tests.plan.Plans.planLines;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_PK_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Streaming plans of LATERAL SNAPSHOT joins whose build input has a primary key on the join key:
 * Flink asks such an input for an upsert changelog, which a filter on a column outside the key
 * cannot deliver (an update that leaves the filter would have to become a delete). The build input
 * must then keep its UPDATE_BEFORE messages, and the operator still keeps one row per key, as the
 * key lies within the join keys.
 *
 * <p>Each statement's plan, with its changelog modes, is compared with its golden file (see {@link
 * GoldenFiles}, which also says how to regenerate them): the join's output is insert-only, and the
 * build exchange's changelog mode is {@code [I,UB,UA,D]} where the build input keeps its
 * UPDATE_BEFORE messages, {@code [I,UA,D]} where it is an upsert changelog. Checked here: that no
 * node drops the UPDATE_BEFORE messages, how many joins a plan has, and the layout of the build
 * side, which only the join's node holds.
 */
class LateralSnapshotUpsertInputPlanTest {

    /**
     * The arguments after {@code input}: {@code on_time}, and a fixed load completion time, so that
     * plans do not depend on the clock.
     */
    private static final String ARGUMENTS =
            "on_time => DESCRIPTOR(update_time), load_completed_time =>"
                    + " CAST(TIMESTAMP '2026-01-02 00:00:00' AS TIMESTAMP_LTZ(3))";

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            new TableEnvironmentExtension(PlanEnvironments::streaming);

    static Stream<Arguments> nonKeyFilters() {
        return Stream.of(
                arguments("inner_join_non_key_filter", "JOIN", "r.rate > 1"),
                arguments("left_join_non_key_filter", "LEFT JOIN", "r.rate > 1"),
                arguments(
                        "inner_join_non_key_and_key_filter",
                        "JOIN",
                        "r.rate > 1 AND r.currency <> 'X'"),
                arguments(
                        "inner_join_non_key_or_key_filter",
                        "JOIN",
                        "(r.rate > 1 OR r.currency = 'A')"));
    }

    /** The filter stays below the join, and receives and passes on the UPDATE_BEFORE messages. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("nonKeyFilters")
    void filterOnANonKeyBuildColumnKeepsUpdateBefore(
            String name, String join, String filter, TableEnvironment env) throws Exception {
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o "
                        + join
                        + " LATERAL SNAPSHOT(input => TABLE rates_pk, "
                        + ARGUMENTS
                        + ") AS r"
                        + " ON o.currency = r.currency AND "
                        + filter;
        String plan =
                physicalPlan(explain(getClass(), name, env, query, ExplainDetail.CHANGELOG_MODE));
        assertRetractingBuildWithOneRowPerKey(env, query, plan);
    }

    @Test
    void nonDeterminismCheckAcceptsTheRetractingBuildInput(TableEnvironment env) throws Exception {
        env.getConfig().set("table.optimizer.non-deterministic-update.strategy", "TRY_RESOLVE");
        explain(
                getClass(),
                "non_deterministic_update_check",
                env,
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL"
                        + " SNAPSHOT(input => TABLE rates_pk, "
                        + ARGUMENTS
                        + ") AS r"
                        + " ON o.currency = r.currency AND r.rate > 1");
    }

    @Test
    void viewWithANonKeyFilterAsInput(TableEnvironment env) throws Exception {
        env.executeSql("CREATE VIEW positive_rates AS SELECT * FROM rates_pk WHERE rate > 0");
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE"
                        + " positive_rates, "
                        + ARGUMENTS
                        + ") AS r"
                        + " ON o.currency = r.currency";
        String plan =
                physicalPlan(
                        explain(
                                getClass(),
                                "view_with_a_non_key_filter",
                                env,
                                query,
                                ExplainDetail.CHANGELOG_MODE));
        assertRetractingBuildWithOneRowPerKey(env, query, plan);
    }

    @Test
    void everyJoinWhoseBuildInputRefusesUpsertsKeepsUpdateBefore(TableEnvironment env)
            throws Exception {
        env.executeSql("CREATE VIEW positive_rates AS SELECT * FROM rates_pk WHERE rate > 0");
        String query =
                "SELECT o.order_id, r.rate, p.rate FROM orders AS o"
                        + " JOIN LATERAL SNAPSHOT(input => TABLE positive_rates, "
                        + ARGUMENTS
                        + ") AS r ON o.currency = r.currency"
                        + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates_pk, "
                        + ARGUMENTS
                        + ") AS p"
                        + " ON o.currency = p.currency AND p.rate < 3";
        String plan =
                physicalPlan(
                        explain(
                                getClass(),
                                "two_joins_whose_build_inputs_refuse_upserts",
                                env,
                                query,
                                ExplainDetail.CHANGELOG_MODE));
        assertThat(planLines(plan, "LateralSnapshotJoin(")).hasSize(2);
        assertThat(plan).doesNotContain("DropUpdateBefore");
        assertThat(buildSideLayouts(env, query))
                .containsExactly("ONE_ROW_PER_KEY", "ONE_ROW_PER_KEY");
    }

    /**
     * Every change of a key passes the filter or none does, so updates need no UPDATE_BEFORE: the
     * build input stays an upsert changelog, whose UPDATE_BEFORE messages are dropped.
     */
    @Test
    void filterOnTheKeyColumnStaysAnUpsertChangelog(TableEnvironment env) throws Exception {
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE"
                        + " rates_pk, "
                        + ARGUMENTS
                        + ") AS r"
                        + " ON o.currency = r.currency AND r.currency <> 'X'";
        explain(getClass(), "key_filter", env, query, ExplainDetail.CHANGELOG_MODE);
        assertOneRowPerKey(env, query);
    }

    /**
     * Flink evaluates the filter in the ChangelogNormalize of an upsert source, which turns an
     * update that leaves the filter into a delete: the join gets an upsert changelog.
     */
    @Test
    void upsertSourceWithANonKeyFilterIsNormalizedWithTheFilter(TableEnvironment env)
            throws Exception {
        env.executeSql(
                createTable(
                        "upsert_rates",
                        RATES_PK_COLUMNS,
                        "'connector' = 'values', 'changelog-mode' = 'I,UA,D'"));
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE"
                        + " upsert_rates, "
                        + ARGUMENTS
                        + ") AS r"
                        + " ON o.currency = r.currency AND r.rate > 1";
        explain(
                getClass(),
                "upsert_source_with_a_non_key_filter",
                env,
                query,
                ExplainDetail.CHANGELOG_MODE);
        assertOneRowPerKey(env, query);
    }

    /**
     * An upsert source whose {@code on_time} is a metadata column (Kafka's record timestamp, say):
     * Flink keeps its ChangelogNormalize for that column, the join leaves it out and reads the
     * upserts and deletes by key itself. The reference table is held once.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "upsert_source_with_a_metadata_on_time, false",
        "upsert_source_with_a_metadata_on_time_and_the_watermark_in_the_scan, true"
    })
    void upsertSourceWithAMetadataOnTimeIsReadWithoutNormalization(
            String name, boolean watermarkInTheScan, TableEnvironment env) throws Exception {
        createUpsertRatesWithRecordTime(env, watermarkInTheScan);
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o LEFT JOIN LATERAL SNAPSHOT(input =>"
                        + " TABLE upsert_rates, on_time => DESCRIPTOR(record_time),"
                        + " load_completed_time => CAST(TIMESTAMP '2026-01-02 00:00:00' AS"
                        + " TIMESTAMP_LTZ(3))) AS r ON o.currency = r.currency";
        String plan =
                physicalPlan(explain(getClass(), name, env, query, ExplainDetail.CHANGELOG_MODE));
        assertThat(plan).doesNotContain("ChangelogNormalize");
        assertOneRowPerKey(env, query);
    }

    /**
     * Join keys beyond the source's key: an update can move a row to another join key, whose old
     * row only an UPDATE_BEFORE removes, so the normalization stays and produces them.
     */
    @Test
    void joinKeysBeyondTheSourceKeyKeepTheNormalization(TableEnvironment env) throws Exception {
        createUpsertRatesWithRecordTime(env, false);
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE"
                        + " upsert_rates, on_time => DESCRIPTOR(record_time), load_completed_time"
                        + " => CAST(TIMESTAMP '2026-01-02 00:00:00' AS TIMESTAMP_LTZ(3))) AS r"
                        + " ON o.currency = r.currency AND CAST(o.order_id AS DOUBLE) = r.rate";
        String plan =
                physicalPlan(
                        explain(
                                getClass(),
                                "upsert_source_joined_on_more_than_its_key",
                                env,
                                query,
                                ExplainDetail.CHANGELOG_MODE));
        assertThat(planLines(plan, "ChangelogNormalize(")).hasSize(1);
        assertRetractingBuildWithOneRowPerKey(env, query, plan);
    }

    /**
     * With the watermark in the scan, as Kafka's source takes it, Flink casts the rowtime in a
     * projection above the normalization.
     */
    private static void createUpsertRatesWithRecordTime(
            TableEnvironment env, boolean watermarkInTheScan) {
        env.executeSql(
                createTable(
                        "upsert_rates",
                        "currency STRING, rate DOUBLE, record_time TIMESTAMP_LTZ(3) METADATA FROM"
                                + " 'timestamp', WATERMARK FOR record_time AS record_time,"
                                + " PRIMARY KEY (currency) NOT ENFORCED",
                        "'connector' = 'values', 'changelog-mode' = 'UA,D', 'readable-metadata' ="
                                + " 'timestamp:TIMESTAMP_LTZ(3)', 'disable-lookup' = 'true', 'enable-watermark-push-down' = '"
                                + watermarkInTheScan
                                + "'"));
    }

    /**
     * No node drops the build input's UPDATE_BEFORE messages, and the operator keeps one row per
     * key: the primary key lies within the join keys, and a filter passes or drops a retraction
     * together with the row it retracts, so a retraction still refers to the one row of its key.
     */
    private static void assertRetractingBuildWithOneRowPerKey(
            TableEnvironment env, String query, String plan) {
        assertThat(plan).doesNotContain("DropUpdateBefore");
        assertOneRowPerKey(env, query);
    }

    /** The query's one join keeps one build row per key. */
    private static void assertOneRowPerKey(TableEnvironment env, String query) {
        assertThat(buildSideLayouts(env, query)).containsExactly("ONE_ROW_PER_KEY");
    }
}
