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

import java.util.Map;

import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.EQUI;
import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.IDLE_TIMEOUT;
import static dev.lateralsnapshot.e2e.ReleaseTestingPlan.insert;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The load phase, the build-side changes and the savepoints of {@link ReleaseTestingPlanIT} again,
 * on a cluster whose state backend is RocksDB ({@code state.backend.type: rocksdb}).
 */
class RocksDbReleaseTestingPlanIT extends ReleaseTestingPlanTestBase {

    @Override
    Map<String, String> clusterOptions() {
        return Map.of("state.backend.type", "rocksdb");
    }

    @Test
    void section1LoadPhaseAndFlipThenSection7SavepointAndRestoreInJoinPhase() {
        ClusterJob job = loadPhaseAndFlipViaIdleTimeout();
        assertThat(
                        cluster.rest()
                                .get("/jobs/" + job.id() + "/checkpoints/config")
                                .path("state_backend")
                                .asText())
                .isEqualTo("EmbeddedRocksDBStateBackend");
        savepointAndRestoreInJoinPhase(job, insert("JOIN", EQUI, IDLE_TIMEOUT));
    }

    @Test
    void section3BuildSideUpdatesDeletesAndLeftJoin() {
        buildSideUpdatesDeletesAndLeftJoin();
    }

    @Test
    void section7SavepointAndRestoreInLoadPhase() {
        savepointAndRestoreInLoadPhase();
    }
}
