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
package dev.lateralsnapshot.e2e;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.EQUI;
import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.IDLE_TIMEOUT;
import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.insert;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compiled plans in Flink's SQL Client with the drop-in jar (docs/operations.md, "Compiled plans"):
 * {@code COMPILE PLAN} writes the join's exec node into a plan file, {@code EXECUTE PLAN} runs it
 * as section 1 runs the statement, and the job, stopped with a savepoint by {@code flink stop},
 * restores into the same plan as section 7 restores the statement.
 */
class CompiledPlanIT extends ReleaseTestingPlanTestBase {

    @Override
    Map<String, String> clusterOptions() {
        return Map.of();
    }

    @Test
    void compilePlanThenExecutePlanThenStopAndRestoreThePlan() {
        Path plan = cluster.runDirectory().resolve("enrich-orders.json");
        String printed =
                sqlClient("COMPILE PLAN '" + plan + "' FOR " + insert("JOIN", EQUI, IDLE_TIMEOUT));
        assertThat(printed).doesNotContain("[ERROR]");
        assertThat(plan)
                .content()
                .contains("\"type\" : \"stream-exec-lateral-snapshot-join_1\"")
                .contains("\"loadCompletedCondition\" : \"compile_time\"")
                .contains("\"loadCompletedIdleTimeoutMs\" : 10000");

        String executePlan = "EXECUTE PLAN '" + plan + "';\n";
        ClusterJob job = loadPhaseAndFlipViaIdleTimeout(executePlan);
        savepointAndRestoreInJoinPhase(job, executePlan);
    }
}
