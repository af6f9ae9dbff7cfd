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

package dev.lateralsnapshot.planner.plan.nodes.physical.stream;

import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SECTION_1_QUERY;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The translation of {@link StreamPhysicalLateralSnapshotJoin} for compiled plans. */
class StreamPhysicalLateralSnapshotJoinTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    @Test
    void compilePlanTranslatesWithTheCompiledFlag(TableEnvironment env) {
        assertThatThrownBy(() -> env.compilePlanSql("INSERT INTO out_print " + SECTION_1_QUERY))
                .as(
                        "Flink no longer calls FlinkPhysicalRel#translateToExecNode(true) for"
                                + " COMPILE PLAN, so the join lets an unloadable compiled plan"
                                + " through")
                .isInstanceOf(TableException.class)
                .hasMessage(StreamPhysicalLateralSnapshotJoin.COMPILED_PLAN_MESSAGE);
        assertThatCode(() -> env.explainSql(SECTION_1_QUERY, ExplainDetail.JSON_EXECUTION_PLAN))
                .as("only COMPILE PLAN may set the flag")
                .doesNotThrowAnyException();
    }
}
