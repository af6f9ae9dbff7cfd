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

import dev.lateralsnapshot.planner.internal.TestExecNodes.Listed;
import dev.lateralsnapshot.planner.internal.TestExecNodes.RegisteredAgain;
import dev.lateralsnapshot.planner.internal.TestExecNodes.RegisteredConcurrently;
import dev.lateralsnapshot.planner.internal.TestExecNodes.TwoVersions;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.delegation.InternalPlan;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.planner.plan.utils.ExecNodeMetadataUtil;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Guards for {@link ExecNodeRegistry}: the two collections of Flink's {@code ExecNodeMetadataUtil}
 * that a compiled plan's nodes are written and read through, and how Flink reads a plan's nodes.
 */
class ExecNodeRegistryTest {

    @Test
    void listsTheNodeWhereFlinkLooksForIt() {
        assertThat(ExecNodeMetadataUtil.retrieveExecNode("registry-test-listed", 1)).isNull();
        assertThatThrownBy(() -> ExecNodeContext.newContext(Listed.class))
                .isInstanceOf(IllegalStateException.class);

        ExecNodeRegistry.register(Listed.class);

        assertThat(ExecNodeMetadataUtil.retrieveExecNode("registry-test-listed", 1))
                .as("ExecNodeMetadataUtil#addTestNode no longer fills the lookup of compiled plans")
                .isEqualTo(Listed.class);
        assertThat(ExecNodeMetadataUtil.execNodes())
                .as("ExecNodeMetadataUtil#execNodes() is no longer Flink's live list")
                .contains(Listed.class);
        ExecNodeContext context = ExecNodeContext.newContext(Listed.class);
        assertThat(context.getTypeAsString()).isEqualTo("registry-test-listed_1");
    }

    @Test
    void registeringAgainChangesNothing() {
        ExecNodeRegistry.register(RegisteredAgain.class);
        ExecNodeRegistry.register(RegisteredAgain.class);

        assertThat(ExecNodeMetadataUtil.retrieveExecNode("registry-test-again", 1))
                .isEqualTo(RegisteredAgain.class);
        assertThatThrownBy(() -> ExecNodeMetadataUtil.addTestNode(RegisteredAgain.class))
                .as("Flink now accepts a second registration; the registry need not guard it")
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Found duplicate ExecNode");
    }

    @Test
    void registrationFromManyThreadsRegistersOnce() throws Exception {
        int threads = 8;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> registrations = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                registrations.add(
                        executor.submit(
                                () -> {
                                    start.await();
                                    ExecNodeRegistry.register(RegisteredConcurrently.class);
                                    return null;
                                }));
            }
            start.countDown();
            for (Future<?> registration : registrations) {
                registration.get(30, TimeUnit.SECONDS);
            }
        } finally {
            executor.shutdownNow();
        }
        assertThat(ExecNodeMetadataUtil.retrieveExecNode("registry-test-concurrent", 1))
                .isEqualTo(RegisteredConcurrently.class);
    }

    @Test
    void registersEveryVersionOfANode() {
        ExecNodeRegistry.register(TwoVersions.class);

        assertThat(ExecNodeMetadataUtil.retrieveExecNode("registry-test-versions", 1))
                .isEqualTo(TwoVersions.class);
        assertThat(ExecNodeMetadataUtil.retrieveExecNode("registry-test-versions", 2))
                .as("ExecNodeMetadataUtil#addTestNode no longer registers every version")
                .isEqualTo(TwoVersions.class);
    }

    /**
     * A node type that nobody registered fails the load with a bare {@code NullPointerException},
     * for Flink's own nodes too; docs/operations.md ("Compiled plans") shows that error.
     */
    @Test
    void anUnknownNodeTypeFailsTheLoadWithANullPointerException() {
        TableEnvironment env = flinkOnlyEnvironment();
        String plan = env.compilePlanSql(FLINK_ONLY_INSERT).asJsonString();
        String unknown = plan.replace("\"stream-exec-calc_1\"", "\"stream-exec-calc_99\"");

        assertThatThrownBy(() -> env.loadPlan(PlanReference.fromJsonString(unknown)))
                .isInstanceOf(TableException.class)
                .hasMessageStartingWith("Cannot load Plan")
                .hasRootCauseInstanceOf(NullPointerException.class);
    }

    /**
     * Nodes read from a plan are compiled ({@code ExecNodeBase#isCompiled}, which Flink injects as
     * {@code isDeserialize}): their transformations get uids from the ids in the plan, which is how
     * a job run from a compiled plan finds its state in a savepoint, in any process.
     */
    @Test
    void nodesReadFromAPlanAreCompiled() {
        TableEnvironment env = flinkOnlyEnvironment();
        String json = env.compilePlanSql(FLINK_ONLY_INSERT).asJsonString();
        PlannerBase planner = (PlannerBase) ((TableEnvironmentImpl) env).getPlanner();
        InternalPlan plan = planner.loadPlan(PlanReference.fromJsonString(json));

        List<String> uids = new ArrayList<>();
        Deque<Transformation<?>> pending = new ArrayDeque<>(planner.translatePlan(plan));
        while (!pending.isEmpty()) {
            Transformation<?> transformation = pending.pop();
            uids.add(transformation.getUid());
            pending.addAll(transformation.getInputs());
        }
        assertThat(uids)
                .as("the transformations of a loaded plan no longer get uids")
                .isNotEmpty()
                .doesNotContainNull()
                .anyMatch(uid -> uid.endsWith("_sink"));
    }

    private static final String FLINK_ONLY_INSERT = "INSERT INTO sink SELECT k + 1 FROM source";

    private static TableEnvironment flinkOnlyEnvironment() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql(createTable("source", "k BIGINT", "'connector' = 'datagen'"));
        env.executeSql(createTable("sink", "k BIGINT", "'connector' = 'blackhole'"));
        return env;
    }
}
