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
import dev.lateralsnapshot.planner.internal.TestExecNodes.Unlisted;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoin;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SECTION_1_QUERY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Guards for {@link ExecNodeContexts}: contexts for exec nodes whether or not Flink lists them. */
class ExecNodeContextsTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    @Test
    void contextFromItsJsonForm() {
        ExecNodeContext context = ExecNodeContexts.of(StreamExecLateralSnapshotJoin.TYPE);
        assertThat(context.getName()).isEqualTo(StreamExecLateralSnapshotJoin.NAME);
        assertThat(context.getVersion()).isEqualTo(StreamExecLateralSnapshotJoin.VERSION);
        assertThat(context.getTypeAsString()).isEqualTo(StreamExecLateralSnapshotJoin.TYPE);
        assertThatThrownBy(() -> ExecNodeContext.newContext(Unlisted.class))
                .as(
                        "ExecNodeContext#newContext now accepts exec nodes outside Flink's list;"
                                + " ExecNodeContexts could use it instead of the JSON form")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void nodeIdsAreUnique() {
        assertThat(ExecNodeContexts.newNodeId()).isNotEqualTo(ExecNodeContexts.newNodeId());
    }

    @ParameterizedTest
    @ValueSource(strings = {"PLAN_ONLY", "ALWAYS", "DISABLED"})
    void execNodeTranslatesWithEveryUidGeneration(String uidGeneration, TableEnvironment env) {
        env.getConfig().set("table.exec.uid.generation", uidGeneration);
        assertThat(
                        env.explainSql(
                                "INSERT INTO out_print " + SECTION_1_QUERY,
                                ExplainDetail.JSON_EXECUTION_PLAN))
                .as(
                        "translating the exec node with the context of ExecNodeContexts.of(...)"
                                + " failed")
                .contains("\"type\" : \"LateralSnapshotJoin[");
    }
}
