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
import dev.lateralsnapshot.testutils.connectors.CollectedRows;
import dev.lateralsnapshot.testutils.environments.StateBackendKind;
import dev.lateralsnapshot.testutils.tables.RateChanges;

import org.apache.flink.table.api.CompiledPlan;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TablePipeline;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static dev.lateralsnapshot.config.LateralSnapshotOptions.BUILD_DISTRIBUTION;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.currency;
import static org.apache.flink.table.api.Expressions.$;
import static org.apache.flink.table.api.Expressions.call;
import static org.apache.flink.table.api.Expressions.descriptor;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compiled plans end to end (docs/operations.md, "Compiled plans"): a plan compiled in one
 * environment runs in a fresh one, which has no tables of its own (the plan holds them), and emits
 * the rows of the statement run directly, on the heap and on RocksDB. Every API that compiles or
 * loads a plan is used by one of the forms.
 *
 * <p>Both sides are bounded files: the build side holds the rates of the reference with an update
 * and a delete, and its watermark stays below the default {@code load_completed_time} (the time of
 * compilation) until the file ends. So every order is buffered and joined, at the flip, with the
 * final rates, whatever the timing: the results are deterministic.
 */
class CompiledPlanRoundTripITCase extends MiniClusterTestBase {

    private static final String SNAPSHOT =
            " LATERAL SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(update_time)) AS r"
                    + " ON o.currency = r.currency";

    private static final String LEFT_JOIN =
            "SELECT o.order_id, o.currency, r.rate FROM orders AS o LEFT JOIN" + SNAPSHOT;

    private static final String INNER_JOIN =
            "SELECT o.order_id, o.currency, r.rate FROM orders AS o JOIN" + SNAPSHOT;

    private static final long ORDERS = 9;

    /** One way to compile a plan and run it in a fresh environment. */
    enum Form {
        COMPILE_PLAN_SQL(LEFT_JOIN) {
            @Override
            void compileAndRun(Run run) throws Exception {
                String plan = run.compiling.compilePlanSql(run.insert()).asJsonString();
                run.fresh().loadPlan(PlanReference.fromJsonString(plan)).execute().await();
            }
        },
        COMPILE_PLAN_THEN_EXECUTE_PLAN(LEFT_JOIN) {
            @Override
            void compileAndRun(Run run) throws Exception {
                run.compiling.executeSql("COMPILE PLAN '" + run.planFile + "' FOR " + run.insert());
                run.fresh().executeSql("EXECUTE PLAN '" + run.planFile + "'").await();
            }
        },
        COMPILE_PLAN_IF_NOT_EXISTS_THEN_LOAD_FROM_FILE(LEFT_JOIN) {
            @Override
            void compileAndRun(Run run) throws Exception {
                run.compiling.executeSql(
                        "COMPILE PLAN '" + run.planFile + "' IF NOT EXISTS FOR " + run.insert());
                run.fresh().loadPlan(PlanReference.fromFile(run.planFile)).execute().await();
            }
        },
        COMPILE_AND_EXECUTE_PLAN(LEFT_JOIN) {
            @Override
            void compileAndRun(Run run) throws Exception {
                // The statement runs the plan it compiles, in the environment of its tables.
                run.compiling
                        .executeSql(
                                "COMPILE AND EXECUTE PLAN '"
                                        + run.planFile
                                        + "' FOR "
                                        + run.insert())
                        .await();
                assertThat(run.planFile).isRegularFile();
            }
        },
        STATEMENT_SET_THEN_LOAD_FROM_RESOURCE(LEFT_JOIN) {
            @Override
            void compileAndRun(Run run) throws Exception {
                CompiledPlan plan =
                        run.compiling.createStatementSet().addInsertSql(run.insert()).compilePlan();
                plan.writeToFile(run.planFile);
                try (URLClassLoader resources =
                        new URLClassLoader(
                                new URL[] {run.planFile.getParent().toUri().toURL()}, null)) {
                    PlanReference resource =
                            PlanReference.fromResource(
                                    resources, run.planFile.getFileName().toString());
                    run.fresh().loadPlan(resource).execute().await();
                }
            }
        },
        TABLE_API_JOIN(INNER_JOIN) {
            @Override
            void compileAndRun(Run run) throws Exception {
                TableEnvironment env = run.compiling;
                Table orders = env.from("orders");
                Table joined =
                        orders.join(snapshotByName(env), $("currency").isEqual($("r_currency")));
                run.execute(enriched(joined).compilePlan());
            }
        },
        TABLE_API_JOIN_LATERAL(INNER_JOIN) {
            @Override
            void compileAndRun(Run run) throws Exception {
                TableEnvironment env = run.compiling;
                Table joined =
                        env.from("orders")
                                .joinLateral(
                                        call(
                                                "SNAPSHOT",
                                                renamedRates(env).asArgument("input"),
                                                descriptor("r_update_time").asArgument("on_time")),
                                        $("currency").isEqual($("r_currency")));
                run.execute(enriched(joined).compilePlan());
            }
        },
        TABLE_API_LEFT_OUTER_JOIN_IN_A_STATEMENT_SET(LEFT_JOIN) {
            @Override
            void compileAndRun(Run run) throws Exception {
                TableEnvironment env = run.compiling;
                Table joined =
                        env.from("orders")
                                .leftOuterJoin(
                                        snapshotByName(env),
                                        $("currency").isEqual($("r_currency")));
                run.execute(env.createStatementSet().add(enriched(joined)).compilePlan());
            }
        },
        TABLE_API_BUILDER(INNER_JOIN) {
            @Override
            void compileAndRun(Run run) throws Exception {
                TableEnvironment env = run.compiling;
                Table snapshot =
                        LateralSnapshot.snapshot(renamedRates(env))
                                .onTime("r_update_time")
                                .toTable();
                Table joined =
                        env.from("orders").join(snapshot, $("currency").isEqual($("r_currency")));
                run.execute(enriched(joined).compilePlan());
            }
        };

        final String query;

        Form(String query) {
            this.query = query;
        }

        abstract void compileAndRun(Run run) throws Exception;

        private static Table renamedRates(TableEnvironment env) {
            // The Table API joins tables whose columns have different names.
            return env.from("rates").as("r_currency", "r_rate", "r_update_time");
        }

        private static Table snapshotByName(TableEnvironment env) {
            return env.fromCall(
                    "SNAPSHOT",
                    renamedRates(env).asArgument("input"),
                    descriptor("r_update_time").asArgument("on_time"));
        }

        private static TablePipeline enriched(Table joined) {
            return joined.select($("order_id"), $("currency"), $("r_rate")).insertInto("enriched");
        }
    }

    /** The environment that compiles, with the tables, the statement, and the plan's file. */
    static final class Run {
        final TableEnvironment compiling;
        final StateBackendKind backend;
        final String query;
        final Path planFile;

        Run(TableEnvironment compiling, StateBackendKind backend, String query, Path planFile) {
            this.compiling = compiling;
            this.backend = backend;
            this.query = query;
            this.planFile = planFile;
        }

        String insert() {
            return "INSERT INTO enriched " + query;
        }

        /** An environment with the join installed and nothing else. */
        TableEnvironment fresh() {
            return boundedInputEnvironment(backend);
        }

        void execute(CompiledPlan plan) throws Exception {
            fresh().executePlan(PlanReference.fromJsonString(plan.asJsonString())).await();
        }
    }

    @BeforeEach
    void writeTheInput() throws Exception {
        List<String> changes = new ArrayList<>(RateChanges.FILE_001);
        changes.addAll(RateChanges.FILE_003);
        writeBoundedInput(changes, ORDERS);
    }

    static Stream<Arguments> formsAndBackends() {
        List<Arguments> arguments = new ArrayList<>();
        for (Form form : Form.values()) {
            for (StateBackendKind backend : StateBackendKind.values()) {
                arguments.add(Arguments.of(form, backend));
            }
        }
        return arguments.stream();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("formsAndBackends")
    void thePlanEmitsTheRowsOfTheStatement(Form form, StateBackendKind backend) throws Exception {
        CollectedRows direct = collection();
        boundedInputTables(boundedInputEnvironment(backend), direct)
                .executeSql("INSERT INTO enriched " + form.query)
                .await();
        assertThat(direct.rows())
                .containsExactlyInAnyOrderElementsOf(expectedRows(form.query.equals(LEFT_JOIN)));

        CollectedRows fromPlan = collection();
        form.compileAndRun(
                new Run(
                        boundedInputTables(boundedInputEnvironment(backend), fromPlan),
                        backend,
                        form.query,
                        directory.resolve("plan.json")));

        assertThat(fromPlan.rows()).containsExactlyInAnyOrderElementsOf(direct.rows());
    }

    /**
     * Statements whose Calc after the join the drop-in planner fuses into the join: an expression
     * over both sides of a LEFT join, so over NULL-padded rows too, and the same with a filter.
     */
    static Stream<Arguments> fusedStatementsAndDistributions() {
        String amount =
                "SELECT o.order_id, o.currency, o.order_id * r.rate FROM orders AS o LEFT JOIN"
                        + SNAPSHOT;
        List<Arguments> arguments = new ArrayList<>();
        for (String query : List.of(amount, amount + " WHERE r.rate > 2")) {
            for (String distribution : List.of("hash", "broadcast")) {
                arguments.add(Arguments.of(query, distribution));
            }
        }
        return arguments.stream();
    }

    @ParameterizedTest(name = "{0} with a {1} build side")
    @MethodSource("fusedStatementsAndDistributions")
    void aFusedJoinAndThePlanCompiledForItEmitTheRowsOfTheUnfusedOne(
            String query, String distribution) throws Exception {
        StateBackendKind backend = StateBackendKind.HEAP;
        String insert = "INSERT INTO enriched " + query;
        CollectedRows unfused = collection();
        TableEnvironment installed = boundedInputTables(boundedInputEnvironment(backend), unfused);
        installed.getConfig().set(BUILD_DISTRIBUTION, distribution);
        installed.executeSql(insert).await();
        assertThat(unfused.rows()).isNotEmpty();

        CollectedRows fused = collection();
        TableEnvironment dropIn = boundedInputTables(boundedDropInEnvironment(backend), fused);
        dropIn.getConfig().set(BUILD_DISTRIBUTION, distribution);
        dropIn.executeSql(insert).await();
        assertThat(fused.rows()).containsExactlyInAnyOrderElementsOf(unfused.rows());

        // A plan compiled by the planner that fuses keeps the Calc as a node of its own, as Flink
        // 2.4 reads it (the fused join's description would hold "calc=["), and emits the same rows.
        CollectedRows fromPlan = collection();
        TableEnvironment compiling =
                boundedInputTables(boundedDropInEnvironment(backend), fromPlan);
        compiling.getConfig().set(BUILD_DISTRIBUTION, distribution);
        String plan = compiling.compilePlanSql(insert).asJsonString();
        assertThat(plan).doesNotContain("calc=[").contains("\"stream-exec-calc_1\"");
        boundedInputEnvironment(backend)
                .loadPlan(PlanReference.fromJsonString(plan))
                .execute()
                .await();
        assertThat(fromPlan.rows()).containsExactlyInAnyOrderElementsOf(unfused.rows());
    }

    /** The final rates, A 1.5 and C 3.0 (B is deleted), for every order. */
    private static List<String> expectedRows(boolean leftJoin) {
        List<String> rows = new ArrayList<>();
        for (long order = 1; order <= ORDERS; order++) {
            String currency = currency(order);
            String rate = currency.equals("A") ? "1.5" : currency.equals("C") ? "3.0" : null;
            if (rate != null || leftJoin) {
                rows.add("+I[" + order + ", " + currency + ", " + rate + "]");
            }
        }
        return rows;
    }
}
