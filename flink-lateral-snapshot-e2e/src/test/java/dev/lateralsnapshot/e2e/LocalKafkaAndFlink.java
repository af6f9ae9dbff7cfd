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

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

/**
 * One {@link LocalKafkaBroker} and one {@link LocalFlinkCluster} for all the Kafka test classes of
 * a test run: each start costs tens of seconds on two cores, and the classes use topics and jobs of
 * their own. Both are started before the first class that uses this extension and stopped when the
 * test run ends; every job is cancelled after each test. The cluster notices a killed TaskManager
 * within seconds and restarts jobs with a fixed delay, for {@link KafkaTaskManagerFailuresIT}; its
 * metric values refresh every second.
 */
final class LocalKafkaAndFlink implements BeforeAllCallback, AfterEachCallback {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(LocalKafkaAndFlink.class);

    private static Resources resources;

    @Override
    public void beforeAll(ExtensionContext context) {
        resources =
                context.getRoot()
                        .getStore(NAMESPACE)
                        .getOrComputeIfAbsent(
                                Resources.class, type -> new Resources(), Resources.class);
    }

    /** Cancels every job that is left, so that the next test has the cluster's slots. */
    @Override
    public void afterEach(ExtensionContext context) {
        RestApi rest = resources.cluster.rest();
        for (String jobId : rest.unfinishedJobIds()) {
            rest.cancel(jobId);
        }
        Wait.until(
                Duration.ofSeconds(60),
                "every job cancelled",
                () -> rest.unfinishedJobIds().isEmpty());
    }

    static LocalKafkaBroker broker() {
        return resources.broker;
    }

    static LocalFlinkCluster cluster() {
        return resources.cluster;
    }

    /** The broker and the cluster, stopped by the root store when the test run ends. */
    private static final class Resources implements AutoCloseable {
        private final LocalKafkaBroker broker;
        private final LocalFlinkCluster cluster;

        Resources() {
            try {
                broker = LocalKafkaBroker.start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            try {
                cluster = LocalFlinkCluster.start(TaskManagerKills.CLUSTER_OPTIONS);
            } catch (IOException e) {
                broker.close();
                throw new UncheckedIOException(e);
            } catch (RuntimeException | Error e) {
                broker.close();
                throw e;
            }
        }

        @Override
        public void close() {
            try {
                cluster.close();
            } finally {
                broker.close();
            }
        }
    }
}
