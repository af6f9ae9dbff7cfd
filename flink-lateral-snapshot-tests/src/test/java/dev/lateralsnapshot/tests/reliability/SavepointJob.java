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

package dev.lateralsnapshot.tests.reliability;

import dev.lateralsnapshot.config.LateralSnapshotOptions;
import dev.lateralsnapshot.tests.runtime.MiniClusterTestBase;
import dev.lateralsnapshot.testutils.environments.StateBackendKind;

import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.table.api.CompiledPlan;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.config.TableConfigOptions;

import javax.annotation.Nullable;

import java.time.LocalDateTime;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ENRICHED_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS_WITHOUT_WATERMARK;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;

/**
 * The job whose savepoints the restore tests use.
 *
 * <p>Flink maps the state in a savepoint to the operators of the restored job by operator id. A SQL
 * job that is not a compiled plan gets no uids ({@code table.exec.uid.generation} {@code
 * PLAN_ONLY}, pinned here); its operator ids are hashes of the job graph's shape: the operators in
 * order, their inputs and their chaining. The uids Flink would generate otherwise ({@code
 * table.exec.uid.format}, {@code <id>_<transformation>}) contain exec node ids from a counter of
 * the JVM, which differ between processes. So the restored job must have exactly the shape of the
 * job that took the savepoint: the same tables, the same query, the same options that shape the
 * graph, and the same maximum parallelism, which fixes the key groups of the keyed state. This
 * class keeps them in one place; change nothing here without regenerating the savepoints of every
 * unreleased version (see {@code src/test/resources/reliability/savepoints/README.md}).
 *
 * <p>The job's compiled plan is the other way to run it ({@code CompiledPlanRestoreITCase}). The
 * transformations of a compiled plan get uids from the ids of the plan's nodes, the same in every
 * process, so the savepoints of the plan's job restore into the plan whatever the JVM. They are
 * savepoints of their own: the statement and its plan give different operator ids.
 *
 * <p>Both sources keep no state of the test run (no file paths, no offsets): the build side is a
 * changelog {@code 'test-probe'} table whose rows all come from its first subtask, so that a -U and
 * its +U arrive in order, the probe side a {@code 'test-probe'} table; the sink collects rows in
 * memory. The build watermark lags one hour behind the build rows, so that the savepoints hold
 * pending build changes.
 */
final class SavepointJob {

    /** The build watermark of the savepoints' job: one hour behind the build rows. */
    static final String LAGGING_WATERMARK = "update_time - INTERVAL '1' HOUR";

    /** The load phase ends when the build watermark reaches this time. */
    static final LocalDateTime LOAD_COMPLETED_TIME = LocalDateTime.of(2026, 1, 2, 0, 0);

    static final String QUERY =
            "INSERT INTO enriched"
                    + " SELECT o.order_id, o.currency, r.rate FROM orders AS o"
                    + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                    + " on_time => DESCRIPTOR(update_time),"
                    + " load_completed_time =>"
                    + " CAST(TIMESTAMP '2026-01-02 00:00:00' AS TIMESTAMP_LTZ(3)),"
                    // Long enough never to expire, so that the TTL's state is in the savepoints.
                    + " state_ttl => INTERVAL '36500' DAY(5)) AS r"
                    + " ON o.currency = r.currency";

    private SavepointJob() {}

    /**
     * Starts the job at a parallelism, restored from a savepoint when a path is given, and waits
     * until all its tasks run.
     */
    static ControlledJob start(
            MiniCluster cluster,
            StateBackendKind backend,
            int parallelism,
            @Nullable String savepoint)
            throws Exception {
        return start(cluster, backend, parallelism, savepoint, LAGGING_WATERMARK);
    }

    /** Starts the job with another build watermark, which the savepoints do not use. */
    static ControlledJob start(
            MiniCluster cluster,
            StateBackendKind backend,
            int parallelism,
            @Nullable String savepoint,
            String ratesWatermark)
            throws Exception {
        return start(cluster, backend, parallelism, savepoint, ratesWatermark, "hash");
    }

    /** Starts the job with a build side distributed as given, {@code hash} or {@code broadcast}. */
    static ControlledJob start(
            MiniCluster cluster,
            StateBackendKind backend,
            int parallelism,
            @Nullable String savepoint,
            String ratesWatermark,
            String distribution)
            throws Exception {
        ControlledJob job =
                prepare(ControlledJob.prepare(backend, parallelism), savepoint, ratesWatermark);
        try {
            job.env().getConfig().set(LateralSnapshotOptions.BUILD_DISTRIBUTION, distribution);
            return job.submit(cluster, QUERY);
        } catch (Exception | AssertionError e) {
            job.close();
            throw e;
        }
    }

    /**
     * The job's plan, compiled as Flink's restore tests compile theirs: with the schemas of the
     * tables but not their options, which name the channels of this run.
     */
    static CompiledPlan compilePlan(ControlledJob job) {
        job.env()
                .getConfig()
                .set(
                        TableConfigOptions.PLAN_COMPILE_CATALOG_OBJECTS,
                        TableConfigOptions.CatalogPlanCompilation.SCHEMA);
        return job.env().compilePlanSql(QUERY);
    }

    /** Loads the job's plan into the job, whose tables it finds by name. */
    static CompiledPlan loadPlan(ControlledJob job, PlanReference plan) {
        job.env()
                .getConfig()
                .set(
                        TableConfigOptions.PLAN_RESTORE_CATALOG_OBJECTS,
                        TableConfigOptions.CatalogPlanRestore.IDENTIFIER);
        return job.env().loadPlan(plan);
    }

    /**
     * The job's environment and tables at a parallelism, restored from a savepoint when a path is
     * given, with nothing submitted yet.
     */
    static ControlledJob prepare(
            StateBackendKind backend, int parallelism, @Nullable String savepoint)
            throws Exception {
        return prepare(ControlledJob.prepare(backend, parallelism), savepoint, LAGGING_WATERMARK);
    }

    /**
     * The job as {@link #prepare(StateBackendKind, int, String)}, in an environment whose planner
     * the drop-in jar's planner factory created, which fuses the projection after the join into the
     * join.
     */
    static ControlledJob prepareDropIn(
            StateBackendKind backend, int parallelism, @Nullable String savepoint)
            throws Exception {
        return prepare(
                ControlledJob.prepare(
                        MiniClusterTestBase.dropInEnvironment(backend, parallelism), parallelism),
                savepoint,
                LAGGING_WATERMARK);
    }

    private static ControlledJob prepare(
            ControlledJob job, @Nullable String savepoint, String ratesWatermark) throws Exception {
        try {
            TableEnvironment env = job.env();
            // The settings that decide how Flink finds the state of an operator (see above).
            env.getConfig().set("table.exec.uid.generation", "PLAN_ONLY");
            env.getConfig().set("pipeline.max-parallelism", "128");
            if (savepoint != null) {
                env.getConfig().set("execution.state-recovery.path", savepoint);
            }
            env.executeSql(createTable("orders", ORDERS_COLUMNS, job.ordersOptions()));
            env.executeSql(
                    createTable(
                            "rates",
                            RATES_COLUMNS_WITHOUT_WATERMARK
                                    + ", WATERMARK FOR update_time AS "
                                    + ratesWatermark,
                            job.ratesOptions()));
            env.executeSql(createTable("enriched", ENRICHED_COLUMNS, job.sinkOptions()));
            return job;
        } catch (Exception | AssertionError e) {
            job.close();
            throw e;
        }
    }

    /** The build watermark once the build rows reached a time: it lags one hour behind. */
    static long watermarkAfter(LocalDateTime latestRowTime) {
        return ControlledJob.millis(latestRowTime.minusHours(1));
    }
}
