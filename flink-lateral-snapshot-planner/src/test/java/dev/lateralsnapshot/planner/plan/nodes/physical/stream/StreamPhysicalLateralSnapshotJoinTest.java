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
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoin;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SECTION_1_QUERY;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compiled plans: every API that compiles one translates the join for it ({@code
 * FlinkPhysicalRel#translateToExecNode(true)}), and the plan holds the join's exec node under its
 * type.
 */
class StreamPhysicalLateralSnapshotJoinTest {

    private static final String INSERT = "INSERT INTO out_print " + SECTION_1_QUERY;

    private static final String NODE_TYPE =
            "\"type\" : \"" + StreamExecLateralSnapshotJoin.TYPE + "\"";

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    @ParameterizedTest
    @ValueSource(
            strings = {
                "COMPILE PLAN",
                "COMPILE PLAN IF NOT EXISTS",
                "compilePlanSql",
                "TablePipeline",
                "StatementSet"
            })
    void everyApiCompilesThePlanWithTheJoin(
            String api, TableEnvironment env, @TempDir Path directory) throws Exception {
        Path planFile = directory.resolve("plan.json");
        String plan;
        switch (api) {
            case "COMPILE PLAN":
                env.executeSql("COMPILE PLAN '" + planFile + "' FOR " + INSERT);
                plan = Files.readString(planFile);
                break;
            case "COMPILE PLAN IF NOT EXISTS":
                env.executeSql("COMPILE PLAN '" + planFile + "' IF NOT EXISTS FOR " + INSERT);
                plan = Files.readString(planFile);
                break;
            case "compilePlanSql":
                plan = env.compilePlanSql(INSERT).asJsonString();
                break;
            case "TablePipeline":
                plan =
                        env.sqlQuery(SECTION_1_QUERY)
                                .insertInto("out_print")
                                .compilePlan()
                                .asJsonString();
                break;
            default:
                plan = env.createStatementSet().addInsertSql(INSERT).compilePlan().asJsonString();
        }

        assertThat(plan)
                .as(
                        "Flink no longer calls FlinkPhysicalRel#translateToExecNode(true) for %s,"
                                + " or the join is missing from the plan",
                        api)
                .containsOnlyOnce(NODE_TYPE);
    }

    @Test
    void compilePlanIfNotExistsKeepsThePlanThatExists(TableEnvironment env, @TempDir Path directory)
            throws Exception {
        Path planFile = directory.resolve("plan.json");
        String compile = "COMPILE PLAN '" + planFile + "' IF NOT EXISTS FOR " + INSERT;
        env.executeSql(compile);
        String first = Files.readString(planFile);
        // The default load_completed_time is the time of compilation: a second compilation would
        // change it.
        Thread.sleep(5);
        env.executeSql(compile);

        assertThat(Files.readString(planFile)).isEqualTo(first);
    }
}
