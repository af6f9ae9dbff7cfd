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

import dev.lateralsnapshot.config.LateralSnapshotOptions;
import dev.lateralsnapshot.config.LateralSnapshotOptions.BuildDistribution;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotBroadcastJoin;
import dev.lateralsnapshot.testutils.connectors.CollectedRows;
import dev.lateralsnapshot.testutils.environments.StateBackendKind;
import dev.lateralsnapshot.testutils.tables.RateChanges;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The broadcast build side (docs/operations.md, "Broadcast build side") emits the rows of the
 * hash-partitioned join, at parallelism 2, on the heap and on RocksDB, for every kind of join
 * condition, INNER and LEFT, with updates, deletes and duplicate build rows; and it runs at the
 * parallelism of the probe side where the hash-partitioned join without equality keys runs on one
 * subtask.
 *
 * <p>Both sides are bounded files, as in {@link CompiledPlanRoundTripITCase}: the build watermark
 * stays below the default {@code load_completed_time} until the build file ends, so every order is
 * buffered and joined at the flip with the final build side, whatever the timing.
 */
class BroadcastBuildSideITCase extends MiniClusterTestBase {

    private static final String SNAPSHOT =
            " LATERAL SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(update_time)) AS r";

    private static final long ORDERS = 9;

    /** A join condition and type; each runs against the same files. */
    enum Query {
        INNER_EQUALITY(
                "SELECT o.order_id, o.currency, r.rate FROM orders AS o JOIN"
                        + SNAPSHOT
                        + " ON o.currency = r.currency"),
        LEFT_EQUALITY(
                "SELECT o.order_id, o.currency, r.rate FROM orders AS o LEFT JOIN"
                        + SNAPSHOT
                        + " ON o.currency = r.currency"),
        INNER_MIXED(
                "SELECT o.order_id, o.currency, r.rate FROM orders AS o JOIN"
                        + SNAPSHOT
                        + " ON o.currency = r.currency AND r.rate * 2 < o.order_id"),
        LEFT_MIXED(
                "SELECT o.order_id, o.currency, r.rate FROM orders AS o LEFT JOIN"
                        + SNAPSHOT
                        + " ON o.currency = r.currency AND r.rate * 2 < o.order_id"),
        INNER_NON_EQUALITY(
                "SELECT o.order_id, r.currency, r.rate FROM orders AS o JOIN"
                        + SNAPSHOT
                        + " ON o.currency <> r.currency"),
        LEFT_NON_EQUALITY(
                "SELECT o.order_id, r.currency, r.rate FROM orders AS o LEFT JOIN"
                        + SNAPSHOT
                        + " ON o.currency <> r.currency AND r.currency <> 'Z' AND r.rate > 2");

        final String sql;

        Query(String sql) {
            this.sql = sql;
        }
    }

    @BeforeEach
    void writeTheInput() throws Exception {
        // A updated, B deleted, C inserted twice (a multiset), and Z last, which moves the
        // watermark past them.
        List<String> changes = new ArrayList<>(RateChanges.FILE_001);
        changes.addAll(RateChanges.FILE_003.subList(0, 3));
        changes.add(RateChanges.insert("C", 3.0, "2026-02-01 10:00:00"));
        changes.add(RateChanges.FILE_003.get(3));
        writeBoundedInput(changes, ORDERS);
    }

    static Stream<Arguments> queriesAndBackends() {
        List<Arguments> arguments = new ArrayList<>();
        for (Query query : Query.values()) {
            for (StateBackendKind backend : StateBackendKind.values()) {
                arguments.add(Arguments.of(query, backend));
            }
        }
        return arguments.stream();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("queriesAndBackends")
    void broadcastEmitsTheRowsOfTheHashPartitionedJoin(Query query, StateBackendKind backend)
            throws Exception {
        List<String> hash = run(query.sql, backend, BuildDistribution.HASH).rows;
        assertThat(hash).as("the hash-partitioned join's rows").isNotEmpty();
        // The duplicate C row fans out: two rows for each C order that matches it.
        if (query == Query.INNER_EQUALITY) {
            assertThat(hash).filteredOn(row -> row.contains(", C, 3.0]")).hasSize(6);
        }

        Run broadcast = run(query.sql, backend, BuildDistribution.BROADCAST);
        assertThat(broadcast.rows).containsExactlyInAnyOrderElementsOf(hash);
        assertThat(broadcast.joinParallelism).isEqualTo(StreamingScenario.PARALLELISM);
    }

    /** The hash-partitioned join without equality keys runs on one subtask, broadcast on two. */
    @ParameterizedTest
    @EnumSource(StateBackendKind.class)
    void broadcastRunsAJoinWithoutEqualityKeysAtTheProbeSidesParallelism(StateBackendKind backend)
            throws Exception {
        assertThat(
                        run(Query.INNER_NON_EQUALITY.sql, backend, BuildDistribution.HASH)
                                .joinParallelism)
                .isEqualTo(1);
        assertThat(
                        run(Query.INNER_NON_EQUALITY.sql, backend, BuildDistribution.BROADCAST)
                                .joinParallelism)
                .isEqualTo(StreamingScenario.PARALLELISM);
    }

    /**
     * A compiled plan keeps the broadcast build side: it runs broadcast in an environment whose
     * build distribution is the default.
     */
    @ParameterizedTest
    @EnumSource(StateBackendKind.class)
    void aCompiledPlanKeepsTheBroadcastBuildSide(StateBackendKind backend) throws Exception {
        String insert = "INSERT INTO enriched " + Query.LEFT_NON_EQUALITY.sql;
        CollectedRows direct = collection();
        TableEnvironment directly = boundedInputTables(boundedInputEnvironment(backend), direct);
        distribute(directly, BuildDistribution.BROADCAST);
        directly.executeSql(insert).await();

        CollectedRows fromPlan = collection();
        TableEnvironment compiling = boundedInputTables(boundedInputEnvironment(backend), fromPlan);
        distribute(compiling, BuildDistribution.BROADCAST);
        String plan = compiling.compilePlanSql(insert).asJsonString();
        assertThat(plan)
                .contains("\"type\" : \"" + StreamExecLateralSnapshotBroadcastJoin.TYPE + "\"")
                .contains(
                        "\""
                                + StreamExecLateralSnapshotBroadcastJoin
                                        .FIELD_NAME_BUILD_ROWS_WARNING_THRESHOLD
                                + "\" : 1000000");

        // A fresh environment with the default build distribution and no tables: the plan holds
        // them.
        TableResult result =
                boundedInputEnvironment(backend)
                        .loadPlan(PlanReference.fromJsonString(plan))
                        .execute();
        result.await();
        assertThat(joinParallelism(result.getJobClient().orElseThrow().getJobID()))
                .isEqualTo(StreamingScenario.PARALLELISM);
        assertThat(fromPlan.rows()).isNotEmpty().containsExactlyInAnyOrderElementsOf(direct.rows());
    }

    /** The rows of a run and the parallelism its join ran at. */
    private static final class Run {
        final List<String> rows;
        final int joinParallelism;

        Run(List<String> rows, int joinParallelism) {
            this.rows = rows;
            this.joinParallelism = joinParallelism;
        }
    }

    private Run run(String query, StateBackendKind backend, BuildDistribution distribution)
            throws Exception {
        CollectedRows sink = collection();
        TableEnvironment env = boundedInputTables(boundedInputEnvironment(backend), sink);
        distribute(env, distribution);
        TableResult result = env.executeSql("INSERT INTO enriched " + query);
        result.await();
        return new Run(
                sink.rows(), joinParallelism(result.getJobClient().orElseThrow().getJobID()));
    }

    private int joinParallelism(JobID job) throws Exception {
        Map<String, Integer> joins = new LinkedHashMap<>();
        for (AccessExecutionJobVertex vertex :
                cluster().getExecutionGraph(job).get().getVerticesTopologically()) {
            if (vertex.getName().contains("LateralSnapshotJoin")) {
                joins.put(vertex.getName(), vertex.getParallelism());
            }
        }
        assertThat(joins).as("the vertex of the join").hasSize(1);
        return joins.values().iterator().next();
    }

    private static void distribute(TableEnvironment env, BuildDistribution distribution) {
        env.getConfig().set(LateralSnapshotOptions.BUILD_DISTRIBUTION, distribution.value());
    }
}
