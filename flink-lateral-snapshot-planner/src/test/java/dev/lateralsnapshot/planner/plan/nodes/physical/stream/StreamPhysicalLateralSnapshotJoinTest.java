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

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SECTION_1_QUERY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Compiled plans, which {@link StreamPhysicalLateralSnapshotJoin} rejects when it is translated for
 * one: its message word for word, for every API that compiles a plan (this is the one test of the
 * message's words), and no error where nothing is compiled.
 */
class StreamPhysicalLateralSnapshotJoinTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    @ParameterizedTest
    @ValueSource(strings = {"COMPILE PLAN", "compilePlanSql", "TablePipeline", "StatementSet"})
    void compiledPlansAreRejected(String api, TableEnvironment env, @TempDir Path directory) {
        String insert = "INSERT INTO out_print " + SECTION_1_QUERY;
        Path planFile = directory.resolve("plan.json");
        ThrowingCallable compile;
        switch (api) {
            case "COMPILE PLAN":
                compile = () -> env.executeSql("COMPILE PLAN '" + planFile + "' FOR " + insert);
                break;
            case "compilePlanSql":
                compile = () -> env.compilePlanSql(insert);
                break;
            case "TablePipeline":
                compile = () -> env.sqlQuery(SECTION_1_QUERY).insertInto("out_print").compilePlan();
                break;
            default:
                compile = () -> env.createStatementSet().addInsertSql(insert).compilePlan();
        }

        assertThatThrownBy(compile)
                .as(
                        "Flink no longer calls FlinkPhysicalRel#translateToExecNode(true) for %s,"
                                + " so the join lets an unloadable compiled plan through",
                        api)
                .isInstanceOf(TableException.class)
                .hasMessage(
                        "Compiled plans (COMPILE PLAN, TablePipeline#compilePlan,"
                                + " StatementSet#compilePlan) are not supported for LATERAL"
                                + " SNAPSHOT joins on Flink 2.3: EXECUTE PLAN can only load"
                                + " Flink's own exec nodes, so the plan could never run. Submit"
                                + " the statement itself instead (for example INSERT INTO ..."
                                + " SELECT ... JOIN LATERAL SNAPSHOT(...), or"
                                + " TablePipeline#execute()). Its state is kept in checkpoints"
                                + " and savepoints like that of any other job: stop it with a"
                                + " savepoint and submit the same statement with"
                                + " 'execution.state-recovery.path' to resume.");
        assertThat(planFile).doesNotExist();
    }

    @Test
    void explainTranslatesWithoutTheCompiledFlag(TableEnvironment env) {
        assertThatCode(() -> env.explainSql(SECTION_1_QUERY, ExplainDetail.JSON_EXECUTION_PLAN))
                .as("only COMPILE PLAN may set the flag")
                .doesNotThrowAnyException();
    }
}
