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

package dev.lateralsnapshot.config;

import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotBroadcastJoin;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoin;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

import static dev.lateralsnapshot.planner.PlanningErrors.assertRejected;
import static dev.lateralsnapshot.planner.PlanningErrors.assertRootCause;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SECTION_1_QUERY;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.physicalPlan;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * The options of {@link LateralSnapshotOptions}: read when a statement is planned, validated with a
 * message that names the option, and carried into the exec node.
 */
class LateralSnapshotOptionsTest {

    private static final String NO_EQUI_QUERY =
            "SELECT o.order_id, r.rate FROM orders AS o"
                    + " JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                    + " on_time => DESCRIPTOR(update_time)) AS r"
                    + " ON o.currency <> r.currency";

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    @Test
    void hashIsTheDefault(TableEnvironment env) {
        String plan = physicalPlan(env, SECTION_1_QUERY);
        assertThat(plan)
                .doesNotContain("broadcast")
                .contains("Exchange(distribution=[hash[currency0]])");
    }

    @Test
    void aSettingAppliesToTheStatementsPlannedAfterIt(TableEnvironment env) {
        broadcast(env);
        assertThat(physicalPlan(env, SECTION_1_QUERY))
                .contains("distribution=[broadcast])")
                .doesNotContain("Exchange(");
        env.getConfig().set(LateralSnapshotOptions.BUILD_DISTRIBUTION, "hash");
        assertThat(physicalPlan(env, SECTION_1_QUERY))
                .doesNotContain("broadcast")
                .contains("Exchange(distribution=[hash[currency0]])");
    }

    @Test
    void valuesAreCaseInsensitive(TableEnvironment env) {
        env.getConfig().set(LateralSnapshotOptions.BUILD_DISTRIBUTION, "BROADCAST");
        assertThat(physicalPlan(env, SECTION_1_QUERY)).contains("distribution=[broadcast])");
    }

    @Test
    void broadcastNeedsNoEqualityKeys(TableEnvironment env) {
        broadcast(env);
        assertThat(physicalPlan(env, NO_EQUI_QUERY))
                .contains("distribution=[broadcast])")
                .doesNotContain("distribution=[single]");
    }

    @Test
    void invalidDistributionIsRejected(TableEnvironment env) {
        env.getConfig().set(LateralSnapshotOptions.BUILD_DISTRIBUTION, "replicated");
        assertRejected(
                env,
                "EXPLAIN " + SECTION_1_QUERY,
                "Invalid value 'replicated' for option"
                        + " 'table.exec.lateral-snapshot.build-distribution'. Allowed values:"
                        + " 'hash', 'broadcast'.");
    }

    @Test
    void invalidDistributionDoesNotFailOtherQueries(TableEnvironment env) {
        env.getConfig().set(LateralSnapshotOptions.BUILD_DISTRIBUTION, "replicated");
        assertThatCode(() -> env.explainSql("SELECT order_id FROM orders"))
                .doesNotThrowAnyException();
    }

    @Test
    void negativeWarningThresholdIsRejected(TableEnvironment env) {
        broadcast(env);
        env.getConfig().set(LateralSnapshotOptions.BROADCAST_BUILD_ROWS_WARNING_THRESHOLD, -1L);
        assertRejected(
                env,
                "EXPLAIN " + SECTION_1_QUERY,
                "Invalid value -1 for option"
                        + " 'table.exec.lateral-snapshot.broadcast.build-rows-warning-threshold'."
                        + " It must be 0 (no warning) or a positive number of rows.");
    }

    @Test
    void execNodeCarriesTheWarningThreshold(TableEnvironment env) {
        broadcast(env);
        env.getConfig().set(LateralSnapshotOptions.BROADCAST_BUILD_ROWS_WARNING_THRESHOLD, 42L);
        List<StreamExecLateralSnapshotJoin> joins =
                SnapshotTestEnvironments.execNodes(env, NO_EQUI_QUERY);
        assertThat(joins).hasSize(1);
        assertThat(joins.get(0))
                .isInstanceOfSatisfying(
                        StreamExecLateralSnapshotBroadcastJoin.class,
                        join -> assertThat(join.getBuildRowsWarningThreshold()).isEqualTo(42));
    }

    @Test
    void hashPlansTheKeyedExecNode(TableEnvironment env) {
        assertThat(SnapshotTestEnvironments.execNodes(env, SECTION_1_QUERY))
                .singleElement()
                .isExactlyInstanceOf(StreamExecLateralSnapshotJoin.class);
    }

    /** Flink's non-determinism check visits a broadcast join as it visits a hash one. */
    @Test
    void nonDeterminismCheckAcceptsTheBroadcastJoin(TableEnvironment env) {
        broadcast(env);
        env.getConfig().set("table.optimizer.non-deterministic-update.strategy", "TRY_RESOLVE");
        assertThatCode(() -> env.explainSql(SECTION_1_QUERY)).doesNotThrowAnyException();
        assertThatCode(() -> env.explainSql(SECTION_1_QUERY, ExplainDetail.PLAN_ADVICE))
                .doesNotThrowAnyException();
    }

    private static void broadcast(TableEnvironment env) {
        env.getConfig()
                .set(
                        LateralSnapshotOptions.BUILD_DISTRIBUTION,
                        LateralSnapshotOptions.BuildDistribution.BROADCAST.value());
    }

    /**
     * Why the distribution is an option and not a hint: Flink's join hints name a table or view
     * input of the join, and the build input of a SNAPSHOT join is the SNAPSHOT call, so Flink
     * rejects a join hint that names it (docs/operations.md, "Broadcast build side").
     */
    @Test
    void joinHintNamingTheBuildSideIsRejectedByFlink(TableEnvironment env) {
        assertRootCause(
                        () ->
                                env.explainSql(
                                        SECTION_1_QUERY.replace(
                                                "SELECT ", "SELECT /*+ BROADCAST(rates) */ ")))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith(
                        "The options of following hints cannot match the name of input tables or"
                                + " views:");
    }
}
