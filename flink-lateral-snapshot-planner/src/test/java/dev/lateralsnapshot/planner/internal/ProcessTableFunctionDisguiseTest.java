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

package dev.lateralsnapshot.planner.internal;

import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.planner.plan.nodes.physical.stream.StreamPhysicalLateralSnapshotJoin;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SECTION_1_QUERY;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.physicalPlan;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.planLines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Guards for {@link ProcessTableFunctionDisguise}: how Flink's changelog mode inference treats a
 * process table function with two table arguments.
 */
class ProcessTableFunctionDisguiseTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    @Test
    void changelogInferenceGivesTheBuildInputAllChanges(TableEnvironment env) {
        String plan = physicalPlan(env, SECTION_1_QUERY, ExplainDetail.CHANGELOG_MODE);
        assertThat(planLines(plan, "+- Exchange("))
                .as(
                        "Flink's changelog mode inference no longer asks the SUPPORT_UPDATES table"
                                + " argument of the process table function disguise for"
                                + " UPDATE_BEFORE; the operator then cannot retract build rows"
                                + " without a primary key. Plan:%n%s",
                        plan)
                .singleElement()
                .asString()
                .endsWith("changelogMode=[I,UB,UA,D])");
        assertThat(planLines(plan, "LateralSnapshotJoin("))
                .as("the disguise must produce an insert-only output. Plan:%n%s", plan)
                .singleElement()
                .asString()
                .endsWith("changelogMode=[I])");
    }

    @Test
    void changelogInferenceAsksAnUpsertKeyedBuildInputForUpserts(TableEnvironment env) {
        String plan =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input"
                                + " => TABLE rates_pk, on_time => DESCRIPTOR(update_time)) AS r"
                                + " ON o.currency = r.currency",
                        ExplainDetail.CHANGELOG_MODE);
        assertThat(planLines(plan, "+- Exchange("))
                .as(
                        "Flink's changelog mode inference no longer asks a SUPPORT_UPDATES table"
                                + " argument partitioned by an upsert key of its input for an"
                                + " upsert changelog. Plan:%n%s",
                        plan)
                .singleElement()
                .asString()
                .endsWith("changelogMode=[I,UA,D])");
    }

    @Test
    void changelogInferenceDropsABuildInputThatRefusesUpsertsAndAsksAgainWithUpdateBefore(
            TableEnvironment env) {
        // The build input is keyed by the join key, so Flink asks it for upserts; the filter on a
        // column outside the key refuses them.
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE"
                        + " rates_pk, on_time => DESCRIPTOR(update_time)) AS r"
                        + " ON o.currency = r.currency AND r.rate > 1";
        String plan;
        try {
            plan = physicalPlan(env, query, ExplainDetail.CHANGELOG_MODE);
        } catch (RuntimeException e) {
            throw new AssertionError(
                    "Flink's changelog mode inference no longer drops the build input of the"
                            + " process table function disguise when that input cannot deliver"
                            + " the upsert changelog it asks for; the library retries with"
                            + " REQUIRE_UPDATE_BEFORE only when the disguise is copied with one"
                            + " input (ProcessTableFunctionDisguise.InputDroppedException)",
                    e);
        }
        assertThat(planLines(plan, "+- Exchange("))
                .as(
                        "Flink's changelog mode inference no longer asks a table argument with"
                                + " REQUIRE_UPDATE_BEFORE for UPDATE_BEFORE when its partition keys"
                                + " are an upsert key of the input. Plan:%n%s",
                        plan)
                .singleElement()
                .asString()
                .endsWith("changelogMode=[I,UB,UA,D])");
    }

    @Test
    void changelogInferenceRejectsAnUpdatingProbeInFlinksWords(TableEnvironment env) {
        Throwable error =
                catchThrowable(
                        () ->
                                env.explainSql(
                                        "SELECT o.currency FROM probe_agg AS o JOIN LATERAL"
                                                + " SNAPSHOT(input => TABLE rates, on_time =>"
                                                + " DESCRIPTOR(update_time)) AS r"
                                                + " ON o.currency = r.currency"));
        assertThat(error.getSuppressed())
                .as("the rethrown error keeps Flink's as suppressed")
                .hasSize(1);
        Throwable flinks = error.getSuppressed()[0];
        assertThat(flinks).isInstanceOf(TableException.class);
        assertThat(
                        ProcessTableFunctionDisguise.rejectedChanges(
                                (TableException) flinks,
                                StreamPhysicalLateralSnapshotJoin.class.getSimpleName()))
                .as(
                        "Flink's changelog mode inference no longer rejects an updating probe"
                                + " input with a message '<node> doesn't support consuming ...',"
                                + " which the library rethrows as a LATERAL SNAPSHOT error: %s",
                        flinks.getMessage())
                .hasValueSatisfying(
                        rest -> assertThat(rest).contains(" changes which is produced by node "));
    }
}
