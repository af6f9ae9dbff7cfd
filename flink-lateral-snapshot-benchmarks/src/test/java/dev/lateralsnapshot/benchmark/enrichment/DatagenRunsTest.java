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

package dev.lateralsnapshot.benchmark.enrichment;

import dev.lateralsnapshot.benchmark.enrichment.DatagenRuns.Job;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The datagen plan's statements plan as the jobs they stand for. */
class DatagenRunsTest {

    @Test
    void theSnapshotJobIsTheLateralSnapshotJoinOnTheBuildTablesRowtime() {
        assertThat(plan(Job.SNAPSHOT))
                .contains("LateralSnapshotJoin(joinType=[LeftOuterJoin]")
                .contains("on_time=[on_time]")
                .doesNotContain("+- Join(");
    }

    @Test
    void theRegularJobIsFlinksRegularLeftJoin() {
        assertThat(plan(Job.REGULAR))
                .contains("+- Join(joinType=[LeftOuterJoin], where=[=(pid, pid0)]")
                .doesNotContain("LateralSnapshot");
    }

    @Test
    void theSourcesJobWritesBothTablesWithoutAJoin() {
        assertThat(plan(Job.SOURCES))
                .contains("Sink(table=[default_catalog.default_database.probe_out]")
                .contains("Sink(table=[default_catalog.default_database.build_out]")
                .doesNotContain("Join");
    }

    private static String plan(Job job) {
        StreamTableEnvironment tEnv =
                JobRunner.dropInPlannerEnvironment(
                        StreamExecutionEnvironment.getExecutionEnvironment());
        DatagenRuns.ddl(1_000).forEach(tEnv::executeSql);
        StatementSet set = tEnv.createStatementSet();
        job.inserts.forEach(set::addInsertSql);
        return set.explain();
    }
}
