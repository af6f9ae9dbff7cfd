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

package dev.lateralsnapshot.testutils.environments;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;

/**
 * Table environments configured the way every test, program and benchmark of this project
 * configures them. None has the join installed: this module cannot see the planner, so the caller
 * adds {@code LateralSnapshot.install(env)}.
 */
public final class TableEnvironments {

    private TableEnvironments() {}

    /**
     * A streaming environment in UTC: {@code LOCALTIMESTAMP}, the rowtime of the orders, and a
     * {@code load_completed_time} literal then mean the same instant on every machine.
     */
    public static TableEnvironment streaming() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.getConfig().set("table.local-time-zone", "UTC");
        return env;
    }

    /** A batch environment in UTC, as {@link #streaming()}. */
    public static TableEnvironment batch() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.getConfig().set("table.local-time-zone", "UTC");
        return env;
    }

    /**
     * A streaming environment for jobs on a MiniCluster ({@link MiniClusters}) at a parallelism on
     * a state backend, in UTC.
     */
    public static TableEnvironment streamingJobs(StateBackendKind backend, int parallelism) {
        return jobs(streaming(), backend, parallelism);
    }

    /**
     * A streaming environment as {@link #streamingJobs(StateBackendKind, int)}, whose planner the
     * factory of the given class name creates in the place of Flink's ({@link
     * PlannerFactoryEnvironments}).
     */
    public static TableEnvironment streamingJobs(
            String plannerFactory, StateBackendKind backend, int parallelism) {
        TableEnvironment env =
                PlannerFactoryEnvironments.create(
                        EnvironmentSettings.inStreamingMode(), plannerFactory);
        env.getConfig().set("table.local-time-zone", "UTC");
        return jobs(env, backend, parallelism);
    }

    private static TableEnvironment jobs(
            TableEnvironment env, StateBackendKind backend, int parallelism) {
        env.getConfig().set("parallelism.default", String.valueOf(parallelism));
        env.getConfig().set("state.backend.type", backend.type);
        // A source subtask without rows sends no watermark and would hold the build watermark back
        // for good: a filesystem source reads every file in one subtask, and a probe subtask may
        // get no order. Flink 2.3 marks such a subtask idle only with this option, which the
        // reference recommends for this case (docs/lateral-snapshot-join.md, "The join emits
        // nothing").
        env.getConfig().set("table.exec.source.idle-timeout", "500 ms");
        return env;
    }
}
