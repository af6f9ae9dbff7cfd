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

import dev.lateralsnapshot.testutils.metrics.JoinMetricsReporter;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/**
 * The MiniCluster of a test class: one TaskManager in the test's JVM with little memory, so that
 * several test JVMs fit on a small machine, and the reporter that keeps the join's metrics.
 */
public final class MiniClusters {

    private MiniClusters() {}

    /**
     * The extension that starts a MiniCluster with this many slots before the test class and stops
     * it after; register it in a static field with {@code @RegisterExtension}.
     */
    public static MiniClusterExtension extension(int slots) {
        return new MiniClusterExtension(
                () ->
                        new MiniClusterResourceConfiguration.Builder()
                                .setConfiguration(configuration())
                                .setNumberTaskManagers(1)
                                .setNumberSlotsPerTaskManager(slots)
                                .build());
    }

    /** The cluster's settings: little memory, and the reporter that keeps the join's metrics. */
    public static Configuration configuration() {
        Configuration configuration = new Configuration();
        configuration.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(128));
        configuration.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.ofMebiBytes(32));
        configuration.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.ofMebiBytes(32));
        JoinMetricsReporter.configure(configuration);
        return configuration;
    }
}
