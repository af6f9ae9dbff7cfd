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
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SECTION_1_QUERY;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * Guards for {@link TemporalJoinDisguise}: Flink's programs after {@code physical_rewrite} accept a
 * subclass of the temporal join.
 */
class TemporalJoinDisguiseTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    @Test
    void nonDeterminismCheckVisitsTheJoin(TableEnvironment env) {
        env.getConfig().set("table.optimizer.non-deterministic-update.strategy", "TRY_RESOLVE");
        assertThatCode(() -> env.explainSql(SECTION_1_QUERY))
                .as(
                        "Flink's non-determinism check no longer accepts the join restored after"
                                + " physical_rewrite (a StreamPhysicalTemporalJoin subclass)")
                .doesNotThrowAnyException();
        assertThatCode(() -> env.explainSql(SECTION_1_QUERY, ExplainDetail.PLAN_ADVICE))
                .as("EXPLAIN PLAN_ADVICE runs the same check")
                .doesNotThrowAnyException();
    }

    @Test
    void programsAfterPhysicalRewriteAcceptTheJoin(TableEnvironment env) {
        env.getConfig().set("table.exec.mini-batch.enabled", "true");
        env.getConfig().set("table.exec.mini-batch.allow-latency", "1 s");
        env.getConfig().set("table.exec.mini-batch.size", "100");
        assertThatCode(
                        () ->
                                env.explainSql(
                                        "INSERT INTO out_print " + SECTION_1_QUERY,
                                        ExplainDetail.JSON_EXECUTION_PLAN))
                .as(
                        "one of Flink's programs after physical_rewrite (mini-batch interval"
                                + " inference, watermark assignment) no longer accepts a"
                                + " StreamPhysicalTemporalJoin subclass")
                .doesNotThrowAnyException();
    }
}
