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

package dev.lateralsnapshot.planner.plan.optimize;

import dev.lateralsnapshot.LateralSnapshot;
import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.planner.plan.nodes.physical.stream.ChangelogInferenceNode;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalProcessTableFunction;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeProgram;
import org.apache.flink.table.planner.plan.optimize.program.StreamOptimizeContext;
import org.apache.flink.table.types.inference.StaticArgument;
import org.apache.flink.table.types.inference.StaticArgumentTrait;

import org.apache.calcite.rel.RelNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static dev.lateralsnapshot.planner.PlanningErrors.assertRootCause;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SECTION_1_QUERY;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.optimizedPlan;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.PROBE_AGG_QUERY;
import static org.apache.flink.table.api.Expressions.$;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The retries and errors of {@link ChangelogInferenceProgram}: an updating probe input, and inputs
 * that Flink cannot deliver as the join needs them. This is the one test of these messages' words;
 * other tests may check that such a query fails and what the message names, not its text.
 */
class ChangelogInferenceProgramTest {

    /** Ours, before Flink's words for the changes and the node that produces them. */
    private static final String UPDATING_PROBE_INPUT =
            "The probe (left) input of LATERAL SNAPSHOT join doesn't support consuming update"
                    + " changes ";

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    @Test
    void inputsRefusedEvenWithUpdateBeforeFailWithAValidationError(TableEnvironment env) {
        // No input of Flink 2.3 is refused with UPDATE_BEFORE, so a stand-in for physical_rewrite
        // drops the build input of every disguise.
        RelNode optimized = optimizedPlan(env, SECTION_1_QUERY);
        List<Boolean> buildRequiresUpdateBefore = new ArrayList<>();
        FlinkOptimizeProgram<StreamOptimizeContext> refusing =
                (root, context) -> dropBuildInputs(root, buildRequiresUpdateBefore);

        assertThatThrownBy(() -> ChangelogInferenceProgram.wrap(refusing).optimize(optimized, null))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("The LATERAL SNAPSHOT join LateralSnapshotJoin(")
                .hasMessageEndingWith(
                        " cannot be planned: Flink cannot deliver its probe (left) input as"
                                + " inserts only together with its build (right) input as a"
                                + " changelog with UPDATE_BEFORE messages. Simplify the build"
                                + " input, for example by writing it to a table first and"
                                + " joining that table.");
        assertThat(buildRequiresUpdateBefore)
                .as("one attempt asking for upserts, one retry with UPDATE_BEFORE")
                .containsExactly(false, true);
    }

    @ParameterizedTest
    @ValueSource(strings = {"JOIN", "LEFT JOIN"})
    void updatingProbeInput(String join, TableEnvironment env) {
        // probe_agg has no order_id; its columns are currency and c.
        assertRootCause(
                        () ->
                                env.executeSql(
                                        "EXPLAIN SELECT o.currency, o.c FROM probe_agg AS o "
                                                + join
                                                + " LATERAL SNAPSHOT(input => TABLE rates,"
                                                + " on_time => DESCRIPTOR(update_time)) AS r"
                                                + " ON o.currency = r.currency"))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith(UPDATING_PROBE_INPUT);
    }

    @Test
    void updatingProbeInputInTheTableApi(TableEnvironment env) {
        Table snapshot =
                LateralSnapshot.snapshot(env.from("rates_r")).onTime("update_time").toTable();
        assertRootCause(
                        () ->
                                env.sqlQuery(PROBE_AGG_QUERY)
                                        .join(snapshot, $("currency").isEqual($("r_currency")))
                                        .explain())
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith(UPDATING_PROBE_INPUT);
    }

    /** Copies every disguise with its probe input only, recording what its build argument asks. */
    private static RelNode dropBuildInputs(RelNode node, List<Boolean> buildRequiresUpdateBefore) {
        List<RelNode> inputs = new ArrayList<>();
        for (RelNode input : node.getInputs()) {
            inputs.add(dropBuildInputs(input, buildRequiresUpdateBefore));
        }
        if (node instanceof ChangelogInferenceNode) {
            StaticArgument build =
                    StreamPhysicalProcessTableFunction.getProvidedInputArgs(
                                    ((ChangelogInferenceNode) node).getCall())
                            .get(1)
                            .e;
            buildRequiresUpdateBefore.add(build.is(StaticArgumentTrait.REQUIRE_UPDATE_BEFORE));
            return node.copy(node.getTraitSet(), inputs.subList(0, 1));
        }
        return node.copy(node.getTraitSet(), inputs);
    }
}
