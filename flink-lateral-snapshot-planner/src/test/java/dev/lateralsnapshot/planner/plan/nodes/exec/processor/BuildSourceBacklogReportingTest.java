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

package dev.lateralsnapshot.planner.plan.nodes.exec.processor;

import dev.lateralsnapshot.config.LateralSnapshotOptions;
import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.runtime.connector.source.backlog.CaughtUpBacklog;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinOperator;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinParameters;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.transformations.SourceTransformation;
import org.apache.flink.streaming.api.transformations.TwoInputTransformation;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.delegation.InternalPlan;
import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.operations.ModifyOperation;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SQL_LOAD_COMPLETED;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS_WITHOUT_WATERMARK;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which sources {@link BuildSourceBacklogReporting} makes report a backlog: the build source of a
 * join planned with {@code table.exec.lateral-snapshot.load-completed-on-caught-up}, also in a job
 * run from a compiled plan, with either build distribution; no source without the option, and no
 * build source that another consumer reads too. The job's other sources and the ids of its
 * operators stay the same.
 */
class BuildSourceBacklogReportingTest {

    private static final String INSERT =
            "INSERT INTO out_print SELECT o.order_id, o.currency, r.rate FROM orders AS o"
                    + " JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                    + " on_time => DESCRIPTOR(update_time), load_completed_time => "
                    + SQL_LOAD_COMPLETED
                    + ") AS r ON o.currency = r.currency";

    private static final String CAUGHT_UP =
            LateralSnapshotOptions.LOAD_COMPLETED_ON_CAUGHT_UP.key();

    @TempDir Path tempDir;

    @Test
    void theBuildSourceOfAJoinWithTheOptionReportsABacklog() {
        TableEnvironment env = SnapshotTestEnvironments.streamingDropIn(tempDir);
        env.getConfig().set(CAUGHT_UP, "true");

        List<Transformation<?>> job = translate(env, INSERT);

        assertThat(sourcesReportingABacklog(job)).isEqualTo(Map.of("rates", true));
        assertThat(joinParameters(job).loadCompletedOnCaughtUp()).isTrue();
        assertThat(joinParameters(job).buildBacklogReported()).isTrue();
    }

    @Test
    void withoutTheOptionNoSourceReportsABacklog() {
        TableEnvironment env = SnapshotTestEnvironments.streamingDropIn(tempDir);

        List<Transformation<?>> job = translate(env, INSERT);

        assertThat(sourcesReportingABacklog(job)).isEqualTo(Map.of("rates", false));
        assertThat(joinParameters(job).loadCompletedOnCaughtUp()).isFalse();
        assertThat(joinParameters(job).buildBacklogReported()).isFalse();
    }

    @Test
    void theBroadcastJoinsBuildSourceReportsABacklog() {
        TableEnvironment env = SnapshotTestEnvironments.streaming(tempDir);
        env.getConfig().set(CAUGHT_UP, "true");
        env.getConfig().set(LateralSnapshotOptions.BUILD_DISTRIBUTION.key(), "broadcast");

        List<Transformation<?>> job = translate(env, INSERT);

        assertThat(sourcesReportingABacklog(job)).isEqualTo(Map.of("rates", true));
        assertThat(joinParameters(job).buildBacklogReported()).isTrue();
    }

    @Test
    void aBuildSourceThatAnotherStatementReadsIsLeftAsItIs() {
        TableEnvironment env = SnapshotTestEnvironments.streaming(tempDir);
        env.getConfig().set(CAUGHT_UP, "true");
        // Every column, as the join reads them: sub-plan reuse then reads the table once for both.
        env.executeSql(
                createTable(
                        "rates_copy",
                        RATES_COLUMNS_WITHOUT_WATERMARK,
                        "'connector' = 'blackhole'"));

        List<Transformation<?>> job =
                translate(env, INSERT, "INSERT INTO rates_copy SELECT * FROM rates");

        assertThat(sourcesReportingABacklog(job)).isEqualTo(Map.of("rates", false));
        assertThat(joinParameters(job).loadCompletedOnCaughtUp()).isTrue();
        assertThat(joinParameters(job).buildBacklogReported()).isFalse();
    }

    @Test
    void aCompiledPlanKeepsTheOptionAndItsJobReportsTheBacklog() {
        TableEnvironment compiling = SnapshotTestEnvironments.streaming(tempDir);
        compiling.getConfig().set(CAUGHT_UP, "true");
        String plan = compiling.compilePlanSql(INSERT).asJsonString();
        // The plan decides, not the environment that runs it.
        TableEnvironment running = SnapshotTestEnvironments.streaming(tempDir);

        List<Transformation<?>> job = translatePlan(running, plan);

        assertThat(plan).contains("\"lateralSnapshotLoadCompletedOnCaughtUp\" : true");
        assertThat(sourcesReportingABacklog(job)).isEqualTo(Map.of("rates", true));
        assertThat(joinParameters(job).buildBacklogReported()).isTrue();
    }

    @Test
    void aPlanCompiledWithoutTheOptionHasNoTraceOfIt() {
        TableEnvironment env = SnapshotTestEnvironments.streaming(tempDir);
        String plan = env.compilePlanSql(INSERT).asJsonString();
        env.getConfig().set(CAUGHT_UP, "true");

        List<Transformation<?>> job = translatePlan(env, plan);

        assertThat(plan).doesNotContain("lateralSnapshotLoadCompletedOnCaughtUp");
        assertThat(sourcesReportingABacklog(job)).isEqualTo(Map.of("rates", false));
    }

    @Test
    void theJobsOperatorsKeepTheirUidsWithTheOption() {
        TableEnvironment env = SnapshotTestEnvironments.streaming(tempDir);
        env.getConfig().set(CAUGHT_UP, "true");
        String planWith = env.compilePlanSql(INSERT).asJsonString();
        String planWithout =
                planWith.replace("\"lateralSnapshotLoadCompletedOnCaughtUp\" : true,", "");

        List<Transformation<?>> with = translatePlan(env, planWith);
        List<Transformation<?>> without = translatePlan(env, planWithout);

        assertThat(planWithout).isNotEqualTo(planWith);
        assertThat(sourcesReportingABacklog(with)).isEqualTo(Map.of("rates", true));
        assertThat(sourcesReportingABacklog(without)).isEqualTo(Map.of("rates", false));
        assertThat(uids(with))
                .isEqualTo(uids(without))
                .anySatisfy(uid -> assertThat(uid).endsWith("_source"));
    }

    private static List<Transformation<?>> translate(TableEnvironment env, String... inserts) {
        Planner planner = ((TableEnvironmentImpl) env).getPlanner();
        List<ModifyOperation> operations = new ArrayList<>();
        for (String insert : inserts) {
            operations.add((ModifyOperation) planner.getParser().parse(insert).get(0));
        }
        return planner.translate(operations);
    }

    private static List<Transformation<?>> translatePlan(TableEnvironment env, String json) {
        Planner planner = ((TableEnvironmentImpl) env).getPlanner();
        try {
            InternalPlan plan = planner.loadPlan(PlanReference.fromJsonString(json));
            return planner.translatePlan(plan);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether each source of the job, by the table it reads, reports a backlog of ours. */
    private static Map<String, Boolean> sourcesReportingABacklog(List<Transformation<?>> job) {
        Map<String, Boolean> sources = new TreeMap<>();
        for (Transformation<?> transformation : all(job)) {
            if (transformation instanceof SourceTransformation) {
                // Flink names a scan's transformation after its table: "rates[3]".
                String name = transformation.getName();
                sources.put(
                        name.substring(0, name.indexOf('[')),
                        CaughtUpBacklog.isWrapped(
                                ((SourceTransformation<?, ?, ?>) transformation).getSource()));
            }
        }
        return sources;
    }

    private static LateralSnapshotJoinParameters joinParameters(List<Transformation<?>> job) {
        List<LateralSnapshotJoinOperator> joins =
                all(job).stream()
                        .filter(TwoInputTransformation.class::isInstance)
                        .map(t -> ((TwoInputTransformation<?, ?, ?>) t).getOperatorFactory())
                        .map(factory -> ((SimpleOperatorFactory<?>) factory).getOperator())
                        .filter(LateralSnapshotJoinOperator.class::isInstance)
                        .map(LateralSnapshotJoinOperator.class::cast)
                        .collect(Collectors.toList());
        assertThat(joins).hasSize(1);
        return joins.get(0).parameters();
    }

    private static List<String> uids(List<Transformation<?>> job) {
        return all(job).stream()
                .map(transformation -> String.valueOf(transformation.getUid()))
                .sorted()
                .collect(Collectors.toList());
    }

    private static Set<Transformation<?>> all(List<Transformation<?>> job) {
        Set<Transformation<?>> all = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Transformation<?>> pending = new ArrayDeque<>(job);
        while (!pending.isEmpty()) {
            Transformation<?> transformation = pending.pop();
            if (all.add(transformation)) {
                pending.addAll(transformation.getInputs());
            }
        }
        return all;
    }
}
