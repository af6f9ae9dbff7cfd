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

package dev.lateralsnapshot.planner.activation;

import dev.lateralsnapshot.planner.functions.LateralSnapshotOperatorTable;
import dev.lateralsnapshot.planner.internal.EnvironmentCatalogs;
import dev.lateralsnapshot.planner.internal.ExecNodeRegistry;
import dev.lateralsnapshot.planner.internal.PlannerConfigs;
import dev.lateralsnapshot.planner.internal.PlannerFactoryContexts;
import dev.lateralsnapshot.planner.internal.ProcessingStreamPlanners;
import dev.lateralsnapshot.planner.internal.TableEnvironmentPlanners;
import dev.lateralsnapshot.planner.module.LateralSnapshotModule;
import dev.lateralsnapshot.planner.operations.LateralSnapshotPlanner;
import dev.lateralsnapshot.planner.parse.LateralSnapshotParserFactory;
import dev.lateralsnapshot.planner.plan.nodes.exec.processor.BuildSourceBacklogReporting;
import dev.lateralsnapshot.planner.plan.nodes.exec.processor.LateralSnapshotJoinCalcFusion;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotBroadcastJoin;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoin;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoinLaterVersions;
import dev.lateralsnapshot.planner.plan.optimize.LateralSnapshotPrograms;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.delegation.PlannerFactory;

import java.util.List;

/**
 * What installs the LATERAL SNAPSHOT join, for the public entry point {@code
 * dev.lateralsnapshot.LateralSnapshot} and for the drop-in jar's planner factory alike, so that
 * both install the same parser, function, optimizer programs and planner. It sits below both: the
 * planner factory does not depend on the entry point, and nothing of the planner does.
 *
 * <p>In streaming mode both routes plan with the same planner: Flink's stream planner with the
 * join's exec-graph processors, {@link LateralSnapshotJoinCalcFusion} and {@link
 * BuildSourceBacklogReporting}, in a planner that also plans the Table API's {@code joinLateral}.
 * The planner factory creates it; {@link #install(TableEnvironment)} puts it in the place of the
 * stream planner that Flink's factory created for the environment, made of the same parts, so that
 * a statement gets the same job through either route ({@code InstallRoutesPlanParityTest}).
 */
public final class LateralSnapshotActivation {

    private LateralSnapshotActivation() {}

    /**
     * Installs the join in the configuration of a planner: the parser, the operator table with
     * {@code SNAPSHOT} and the optimizer programs; a second call changes nothing. It also lists the
     * join's exec nodes among Flink's, once for all environments of the planner's class loader, so
     * that compiled plans with the join can be loaded.
     */
    public static void install(TableConfig config) {
        ExecNodeRegistry.register(
                StreamExecLateralSnapshotJoin.class,
                StreamExecLateralSnapshotJoinLaterVersions.class,
                StreamExecLateralSnapshotBroadcastJoin.class);
        if (isInstalled(config)) {
            return;
        }
        PlannerConfigs.extend(
                config,
                LateralSnapshotParserFactory.parserConfig(),
                LateralSnapshotOperatorTable.INSTANCE,
                LateralSnapshotPrograms.streamProgram(),
                LateralSnapshotPrograms.batchProgram());
    }

    /** Whether the join is installed in the configuration. */
    public static boolean isInstalled(TableConfig config) {
        return PlannerConfigs.hasStreamProgram(
                config, LateralSnapshotPrograms::isLateralSnapshotProgram);
    }

    /**
     * Installs the join in the configuration a planner factory is given, and loads the module that
     * finds {@code SNAPSHOT} by name into the environment the factory creates a planner for.
     */
    public static void install(PlannerFactory.Context context) {
        install(context.getTableConfig());
        LateralSnapshotModule.load(EnvironmentCatalogs.of(context));
    }

    /**
     * Installs the join in an environment: its configuration, the module, and a planner that plans
     * the Table API's {@code joinLateral(call("SNAPSHOT", ...), predicate)} in the place of the
     * environment's. It installs what the planner factory installs, in the context Flink's factory
     * was given for the environment. Flink's stream planner is replaced by the stream planner of
     * the planner factory, made of that context; any other planner, Flink's batch planner for one,
     * is wrapped as it is.
     */
    public static void install(TableEnvironment env) {
        PlannerFactory.Context context = PlannerFactoryContexts.of(env);
        install(context);
        TableEnvironmentPlanners.replace(
                env,
                planner ->
                        ProcessingStreamPlanners.isFlinkStreamPlanner(planner)
                                ? streamPlanner(context)
                                : LateralSnapshotPlanner.wrap(planner));
    }

    /**
     * The planner of the drop-in jar's planner factory: the join installed in the context, and
     * Flink's planner, in streaming mode with the join's exec-graph processors, wrapped in the
     * planner that plans the Table API's {@code joinLateral}.
     */
    public static Planner createPlanner(
            PlannerFactory.Context context, PlannerFactory flinkPlannerFactory) {
        install(context);
        if (context.getTableConfig().get(ExecutionOptions.RUNTIME_MODE)
                == RuntimeExecutionMode.STREAMING) {
            return streamPlanner(context);
        }
        return LateralSnapshotPlanner.wrap(flinkPlannerFactory.create(context));
    }

    /**
     * The planner of both routes in streaming mode, for the parts in the context. The build source
     * of a join must report its backlog in a job run from a compiled plan too; the fusion applies
     * to planned statements only.
     */
    private static Planner streamPlanner(PlannerFactory.Context context) {
        BuildSourceBacklogReporting backlogReporting = new BuildSourceBacklogReporting();
        return LateralSnapshotPlanner.wrap(
                ProcessingStreamPlanners.create(
                        context, List.of(new LateralSnapshotJoinCalcFusion(), backlogReporting)),
                List.of(backlogReporting));
    }
}
