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

package dev.lateralsnapshot.planner;

import dev.lateralsnapshot.planner.module.LateralSnapshotModule;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoin;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.config.OptimizerConfigOptions;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.catalog.DataTypeFactory;
import org.apache.flink.table.catalog.UnresolvedIdentifier;
import org.apache.flink.table.functions.TableFunction;
import org.apache.flink.table.planner.calcite.FlinkContext;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalProcessTableFunction;
import org.apache.flink.table.planner.plan.optimize.program.FlinkBatchProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkChainedProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkRuleSetProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkStreamProgram;
import org.apache.flink.table.planner.plan.optimize.program.StreamOptimizeContext;
import org.apache.flink.table.types.inference.StaticArgument;
import org.apache.flink.table.types.inference.StaticArgumentTrait;
import org.apache.flink.table.types.inference.TypeInference;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.tools.RuleSets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SECTION_1_QUERY;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.optimizedPlan;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.physicalPlan;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.planLines;
import static org.apache.flink.table.api.Expressions.$;
import static org.apache.flink.table.api.Expressions.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Guards for the assumptions about Flink's planner internals that {@link FlinkPlannerInternals}
 * makes. Each failure message says which assumption a new Flink version broke; the class comment of
 * {@link FlinkPlannerInternals} explains why each one is needed.
 */
class FlinkPlannerInternalsTest {

    @TempDir Path buildDirectory;

    private TableEnvironment env;

    @BeforeEach
    void createEnvironment() {
        env = SnapshotTestEnvironments.streaming(buildDirectory);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void flinkProgramsHaveThePhasesTheLibraryHooksInto(boolean joinReorder) {
        Configuration config = new Configuration();
        config.set(OptimizerConfigOptions.TABLE_OPTIMIZER_JOIN_REORDER_ENABLED, joinReorder);

        FlinkChainedProgram<?> stream = FlinkStreamProgram.buildProgram(config);
        assertThat(stream.getProgramNames())
                .as(
                        "Flink's stream optimizer program lost a phase that"
                                + " FlinkPlannerInternals.STREAM_PHASES hooks into")
                .containsAll(FlinkPlannerInternals.STREAM_PHASES);
        for (String phase :
                List.of(
                        FlinkStreamProgram.PROJECT_REWRITE(),
                        FlinkStreamProgram.LOGICAL(),
                        FlinkStreamProgram.PHYSICAL())) {
            assertThat(stream.get(phase).get())
                    .as("Flink's stream phase '%s' is no longer a rule set program", phase)
                    .isInstanceOf(FlinkRuleSetProgram.class);
        }
        assertThat(FlinkBatchProgram.buildProgram(config).getProgramNames())
                .as(
                        "Flink's batch optimizer program lost a phase that"
                                + " FlinkPlannerInternals.BATCH_PHASES hooks into")
                .containsAll(FlinkPlannerInternals.BATCH_PHASES);

        // The capture needs decorrelated joins and must precede projection push-down.
        List<String> extended =
                FlinkPlannerInternals.streamProgram(
                                config,
                                (root, context) -> root,
                                RuleSets.ofList(),
                                RuleSets.ofList(),
                                RuleSets.ofList())
                        .getProgramNames();
        int capture = extended.indexOf(FlinkPlannerInternals.CAPTURE_PROGRAM);
        assertThat(capture)
                .as("the capture must run after decorrelation and before the default rewrite")
                .isGreaterThan(extended.indexOf(FlinkStreamProgram.DECORRELATE()))
                .isLessThan(extended.indexOf(FlinkStreamProgram.DEFAULT_REWRITE()))
                .isLessThan(extended.indexOf(FlinkStreamProgram.PROJECT_REWRITE()));
    }

    @Test
    void filterPushDownRulesBringAWhereConjunctDownToTheSnapshotJoin() {
        env.executeSql(
                "CREATE TABLE items (order_id BIGINT, item STRING) WITH ('connector' = 'datagen')");
        String plan =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.rate, i.item FROM orders AS o, LATERAL SNAPSHOT("
                                + "input => TABLE rates, on_time => DESCRIPTOR(update_time)) AS r,"
                                + " items AS i WHERE o.currency = r.currency"
                                + " AND i.order_id = o.order_id");
        assertThat(planLines(plan, "LateralSnapshotJoin("))
                .as(
                        "Flink's filter push-down rules (FlinkPlannerInternals.filterPushDownRules)"
                                + " no longer move a WHERE conjunct above a regular join into its"
                                + " input, down to the SNAPSHOT join it belongs to. Plan:%n%s",
                        plan)
                .singleElement()
                .asString()
                .contains("where=[=(");
    }

    @Test
    void changelogInferenceGivesTheDisguisedBuildInputAllChanges() {
        String plan = physicalPlan(env, SECTION_1_QUERY, ExplainDetail.CHANGELOG_MODE);
        assertThat(planLines(plan, "+- Exchange("))
                .as(
                        "Flink's changelog mode inference no longer asks the SUPPORT_UPDATES table"
                                + " argument of the process table function disguise"
                                + " (FlinkPlannerInternals.ChangelogInferenceNode) for"
                                + " UPDATE_BEFORE; the operator then cannot retract build rows"
                                + " without a primary key. Plan:%n%s",
                        plan)
                .singleElement()
                .asString()
                .endsWith("changelogMode=[I,UB,UA,D])");
        assertThat(planLines(plan, "LateralSnapshotJoin("))
                .as("the disguise must produce an insert-only output. Plan:%n%s", plan)
                .singleElement()
                .asString()
                .endsWith("changelogMode=[I])");
    }

    @Test
    void changelogInferenceFallsBackToUpdateBeforeForABuildInputThatRefusesUpserts() {
        // The build input is keyed by the join key, so Flink asks it for upserts; the filter on a
        // column outside the key refuses them.
        String query =
                "SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(input => TABLE"
                        + " rates_pk, on_time => DESCRIPTOR(update_time)) AS r"
                        + " ON o.currency = r.currency AND r.rate > 1";
        String plan;
        try {
            plan = physicalPlan(env, query, ExplainDetail.CHANGELOG_MODE);
        } catch (RuntimeException e) {
            throw new AssertionError(
                    "Flink's changelog mode inference no longer drops the build input of the"
                            + " process table function disguise when that input cannot deliver"
                            + " the upsert changelog it asks for; FlinkPlannerInternals retries"
                            + " with REQUIRE_UPDATE_BEFORE only when the disguise is copied with"
                            + " one input",
                    e);
        }
        assertThat(planLines(plan, "+- Exchange("))
                .as(
                        "Flink's changelog mode inference no longer asks a table argument with"
                                + " REQUIRE_UPDATE_BEFORE for UPDATE_BEFORE when its partition keys"
                                + " are an upsert key of the input. Plan:%n%s",
                        plan)
                .singleElement()
                .asString()
                .endsWith("changelogMode=[I,UB,UA,D])");
    }

    @Test
    void inputsRefusedEvenWithUpdateBeforeFailWithAValidationError() {
        // No input of Flink 2.3 is refused with UPDATE_BEFORE, so a stand-in for physical_rewrite
        // drops the build input of every disguise.
        RelNode optimized = optimizedPlan(env, SECTION_1_QUERY);
        List<Boolean> buildRequiresUpdateBefore = new ArrayList<>();
        FlinkOptimizeProgram<StreamOptimizeContext> refusing =
                (root, context) -> dropBuildInputs(root, buildRequiresUpdateBefore);

        assertThatThrownBy(
                        () ->
                                FlinkPlannerInternals.presentJoinsAsProcessTableFunctions(refusing)
                                        .optimize(optimized, null))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("The LATERAL SNAPSHOT join LateralSnapshotJoin(")
                .hasMessageEndingWith(
                        " cannot be planned: Flink cannot deliver its probe (left) input as"
                                + " inserts only together with its build (right) input as a"
                                + " changelog with UPDATE_BEFORE messages. Simplify the build"
                                + " input, for example by writing it to a table first and"
                                + " joining that table.");
        assertThat(buildRequiresUpdateBefore)
                .as("one attempt asking for upserts, one retry with UPDATE_BEFORE")
                .containsExactly(false, true);
    }

    /** Copies every disguise with its probe input only, recording what its build argument asks. */
    private static RelNode dropBuildInputs(RelNode node, List<Boolean> buildRequiresUpdateBefore) {
        List<RelNode> inputs = new ArrayList<>();
        for (RelNode input : node.getInputs()) {
            inputs.add(dropBuildInputs(input, buildRequiresUpdateBefore));
        }
        if (node instanceof FlinkPlannerInternals.ChangelogInferenceNode) {
            StaticArgument build =
                    StreamPhysicalProcessTableFunction.getProvidedInputArgs(
                                    ((StreamPhysicalProcessTableFunction) node).getCall())
                            .get(1)
                            .e;
            buildRequiresUpdateBefore.add(build.is(StaticArgumentTrait.REQUIRE_UPDATE_BEFORE));
            return node.copy(node.getTraitSet(), inputs.subList(0, 1));
        }
        return node.copy(node.getTraitSet(), inputs);
    }

    @Test
    void changelogInferenceRejectsAnUpdatingProbeWithTheExpectedMessage() {
        Throwable error =
                catchThrowable(
                        () ->
                                env.explainSql(
                                        "SELECT o.currency FROM probe_agg AS o JOIN LATERAL"
                                                + " SNAPSHOT(input => TABLE rates, on_time =>"
                                                + " DESCRIPTOR(update_time)) AS r"
                                                + " ON o.currency = r.currency"));
        assertThat(error.getSuppressed())
                .as("the rethrown error keeps Flink's as suppressed")
                .hasSize(1);
        assertThat(error.getSuppressed()[0])
                .as(
                        "Flink's changelog mode inference no longer rejects an updating probe"
                                + " input with a message that starts with '%s', which"
                                + " FlinkPlannerInternals rethrows as a LATERAL SNAPSHOT error",
                        FlinkPlannerInternals.PROBE_UPDATES_ERROR_PREFIX)
                .isInstanceOf(TableException.class)
                .hasMessageStartingWith(FlinkPlannerInternals.PROBE_UPDATES_ERROR_PREFIX);
    }

    @Test
    void nonDeterminismCheckVisitsTheRestoredJoin() {
        env.getConfig().set("table.optimizer.non-deterministic-update.strategy", "TRY_RESOLVE");
        assertThatCode(() -> env.explainSql(SECTION_1_QUERY))
                .as(
                        "Flink's non-determinism check no longer accepts the join restored after"
                                + " physical_rewrite (a StreamPhysicalTemporalJoin subclass)")
                .doesNotThrowAnyException();
        assertThatCode(() -> env.explainSql(SECTION_1_QUERY, ExplainDetail.PLAN_ADVICE))
                .as("EXPLAIN PLAN_ADVICE runs the same check")
                .doesNotThrowAnyException();
    }

    @Test
    void timeAttributeConversionLetsTheJoinConvertItself() {
        assertThat(
                        physicalPlan(
                                env,
                                "SELECT o.order_id, r.update_time FROM orders AS o JOIN LATERAL"
                                        + " SNAPSHOT(input => TABLE rates, on_time =>"
                                        + " DESCRIPTOR(update_time)) AS r"
                                        + " ON o.currency = r.currency"))
                .as(
                        "Flink's time attribute conversion (RelTimeIndicatorConverter) no longer"
                                + " reaches FlinkLogicalLateralSnapshotJoin#accept(RelShuttle),"
                                + " so build rowtime columns keep their time attribute")
                .contains("CAST(update_time AS TIMESTAMP(3)) AS update_time");
    }

    @Test
    void execNodeContextFromItsJsonForm() {
        ExecNodeContext context = FlinkPlannerInternals.newExecNodeContext();
        assertThat(context.getName()).isEqualTo("lateral-snapshot-join");
        assertThat(context.getVersion()).isEqualTo(1);
        assertThatThrownBy(() -> ExecNodeContext.newContext(StreamExecLateralSnapshotJoin.class))
                .as(
                        "ExecNodeContext#newContext now accepts exec nodes outside Flink's list;"
                                + " FlinkPlannerInternals could use it instead of the JSON form")
                .isInstanceOf(IllegalStateException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"PLAN_ONLY", "ALWAYS", "DISABLED"})
    void execNodeTranslatesWithEveryUidGeneration(String uidGeneration) {
        env.getConfig().set("table.exec.uid.generation", uidGeneration);
        assertThat(
                        env.explainSql(
                                "INSERT INTO out_print " + SECTION_1_QUERY,
                                ExplainDetail.JSON_EXECUTION_PLAN))
                .as(
                        "translating the exec node with the context of"
                                + " FlinkPlannerInternals.newExecNodeContext() failed")
                .contains("\"type\" : \"LateralSnapshotJoin[");
    }

    @Test
    void compilePlanTranslatesWithTheCompiledFlag() {
        assertThatThrownBy(() -> env.compilePlanSql("INSERT INTO out_print " + SECTION_1_QUERY))
                .as(
                        "Flink no longer calls FlinkPhysicalRel#translateToExecNode(true) for"
                                + " COMPILE PLAN, so FlinkPlannerInternals.checkNotCompiled lets an"
                                + " unloadable compiled plan through")
                .isInstanceOf(TableException.class)
                .hasMessage(FlinkPlannerInternals.COMPILED_PLAN_MESSAGE);
        assertThatCode(() -> env.explainSql(SECTION_1_QUERY, ExplainDetail.JSON_EXECUTION_PLAN))
                .as("only COMPILE PLAN may set the flag")
                .doesNotThrowAnyException();
    }

    @Test
    void lateralJoinsResolveTheirCallInOperationTreeBuilder() {
        Table orders = env.from("orders");
        ResolutionProbe.resolvingJoinLateral.clear();

        Table lateral = orders.joinLateral(call(ResolutionProbe.class, $("currency")));
        orders.leftOuterJoinLateral(call(ResolutionProbe.class, $("currency")));

        assertThat(ResolutionProbe.resolvingJoinLateral)
                .as(
                        "the Table API no longer resolves the call of joinLateral and"
                                + " leftOuterJoinLateral inside %s#%s, so SNAPSHOT cannot point"
                                + " those calls to the supported form",
                        FlinkPlannerInternals.JOIN_LATERAL_CLASS,
                        FlinkPlannerInternals.JOIN_LATERAL_METHOD)
                .isNotEmpty()
                .containsOnly(true);

        ResolutionProbe.resolvingJoinLateral.clear();
        lateral.explain();
        assertThat(ResolutionProbe.resolvingJoinLateral)
                .as("the planner asks for the type inference outside of joinLateral")
                .isNotEmpty()
                .containsOnly(false);
    }

    @Test
    void sqlSeesOnlyTheSqlFunctionWhileTheModuleIsLoaded() {
        assertThat(env.listModules()).contains(LateralSnapshotModule.NAME);
        assertThat(
                        env.sqlQuery(
                                        "SELECT r.* FROM orders AS o JOIN LATERAL SNAPSHOT(input"
                                                + " => TABLE rates, on_time =>"
                                                + " DESCRIPTOR(update_time)) AS r"
                                                + " ON o.currency = r.currency")
                                .getResolvedSchema()
                                .getColumnNames())
                .as(
                        "Calcite's chained operator tables no longer share one overload list, so"
                                + " LateralSnapshotOperatorTable cannot remove the bridge of the"
                                + " module's SNAPSHOT and SQL gets the process table function's"
                                + " rows")
                .containsExactly("currency", "rate", "update_time");
    }

    @Test
    void tableApiPartsOfAnEnvironment() {
        FlinkContext context = FlinkPlannerInternals.flinkContext(env);
        assertThat(context.getCatalogManager())
                .isSameAs(((TableEnvironmentImpl) env).getCatalogManager());
        assertThat(context.getFunctionCatalog().lookupFunction(UnresolvedIdentifier.of("SNAPSHOT")))
                .as("the module loaded by install must be in the planner's function catalog")
                .isPresent();
        assertThat(FlinkPlannerInternals.tableEnvironment(env.from("orders"))).isSameAs(env);
    }

    /** Records, per resolution, whether it happens for a lateral join. */
    public static class ResolutionProbe extends TableFunction<String> {

        static final List<Boolean> resolvingJoinLateral = new ArrayList<>();

        public void eval(String text) {
            collect(text);
        }

        @Override
        public TypeInference getTypeInference(DataTypeFactory typeFactory) {
            resolvingJoinLateral.add(FlinkPlannerInternals.isResolvingJoinLateral());
            return super.getTypeInference(typeFactory);
        }
    }
}
