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

package dev.lateralsnapshot.tests.runtime;

import dev.lateralsnapshot.LateralSnapshot;
import dev.lateralsnapshot.planner.delegation.LateralSnapshotPlannerFactory;
import dev.lateralsnapshot.testutils.environments.MiniClusters;
import dev.lateralsnapshot.testutils.environments.StateBackendKind;
import dev.lateralsnapshot.testutils.environments.TableEnvironments;

import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The MiniCluster of a test class, which the extension starts before the class and stops after it:
 * two slots for parallelism 2, little memory, and the reporter that keeps the join's metrics.
 */
public abstract class MiniClusterTestBase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            MiniClusters.extension(StreamingScenario.PARALLELISM);

    @TempDir protected Path directory;

    private MiniCluster cluster;

    @BeforeEach
    void injectCluster(@InjectMiniCluster MiniCluster cluster) {
        this.cluster = cluster;
    }

    /** This class's cluster. */
    protected MiniCluster cluster() {
        return cluster;
    }

    /** A streaming scenario on this class's cluster; close it to stop its job. */
    StreamingScenario scenario(StateBackendKind backend) throws IOException {
        return StreamingScenario.create(cluster, backend, directory);
    }

    /**
     * A streaming environment with the join installed, for jobs at a parallelism on a state
     * backend, in UTC.
     */
    public static TableEnvironment streamingEnvironment(StateBackendKind backend, int parallelism) {
        TableEnvironment env = TableEnvironments.streamingJobs(backend, parallelism);
        LateralSnapshot.install(env);
        return env;
    }

    /**
     * A streaming environment as {@link #streamingEnvironment}, whose planner the drop-in jar's
     * planner factory created: it has the join without {@code install} and fuses the projection
     * after a join into the join's operator.
     */
    public static TableEnvironment dropInEnvironment(StateBackendKind backend, int parallelism) {
        return TableEnvironments.streamingJobs(
                LateralSnapshotPlannerFactory.class.getName(), backend, parallelism);
    }
}
