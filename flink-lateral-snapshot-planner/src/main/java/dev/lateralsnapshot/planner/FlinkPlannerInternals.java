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

import dev.lateralsnapshot.planner.plan.nodes.logical.FlinkLogicalLateralSnapshotJoin;
import dev.lateralsnapshot.planner.plan.nodes.physical.stream.StreamPhysicalLateralSnapshotJoin;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.api.internal.TableImpl;
import org.apache.flink.table.catalog.ContextResolvedFunction;
import org.apache.flink.table.catalog.DataTypeFactory;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.functions.FunctionIdentifier;
import org.apache.flink.table.functions.FunctionKind;
import org.apache.flink.table.operations.utils.OperationTreeBuilder;
import org.apache.flink.table.planner.calcite.FlinkContext;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.calcite.RelTimeIndicatorConverter;
import org.apache.flink.table.planner.calcite.RexTableArgCall;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.functions.bridging.BridgingSqlFunction;
import org.apache.flink.table.planner.functions.sql.FlinkSqlOperatorTable;
import org.apache.flink.table.planner.plan.nodes.FlinkConventions;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.planner.plan.nodes.exec.spec.JoinSpec;
import org.apache.flink.table.planner.plan.nodes.logical.FlinkLogicalCalc;
import org.apache.flink.table.planner.plan.nodes.logical.FlinkLogicalTableFunctionScan;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalProcessTableFunction;
import org.apache.flink.table.planner.plan.optimize.program.BatchOptimizeContext;
import org.apache.flink.table.planner.plan.optimize.program.FlinkBatchProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkChainedProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeContext;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkRuleSetProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkStreamProgram;
import org.apache.flink.table.planner.plan.optimize.program.StreamOptimizeContext;
import org.apache.flink.table.planner.plan.rules.logical.FlinkFilterJoinRule;
import org.apache.flink.table.planner.plan.rules.logical.FlinkFilterJoinRule.FlinkFilterIntoJoinRule.FlinkFilterIntoJoinRuleConfig;
import org.apache.flink.table.planner.plan.rules.logical.FlinkFilterJoinRule.FlinkJoinConditionPushRule.FlinkFilterJoinRuleConfig;
import org.apache.flink.table.planner.plan.rules.logical.FlinkFilterProjectTransposeRule;
import org.apache.flink.table.types.inference.StaticArgument;
import org.apache.flink.table.types.inference.StaticArgumentTrait;
import org.apache.flink.table.types.inference.TypeInference;
import org.apache.flink.table.types.inference.TypeStrategies;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.types.Row;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttle;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.rules.FilterMergeRule;
import org.apache.calcite.rel.rules.FilterProjectTransposeRule;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.RuleSet;
import org.apache.calcite.tools.RuleSets;
import org.apache.calcite.util.ImmutableBitSet;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BinaryOperator;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * The one place where this library leans on internals of Flink's planner that are not meant for
 * extension. Flink 2.3 has no plug-in point for a new join, so the library hooks into:
 *
 * <ul>
 *   <li><b>Optimizer program phases</b>, by name: the capture program runs before {@code
 *       default_rewrite}; rules join the {@code project_rewrite}, {@code logical} and {@code
 *       physical} rule sets; {@code physical_rewrite} is wrapped.
 *   <li><b>Filter push-down rules</b>: the capture program runs Flink's own rules of {@code
 *       predicate_pushdown}, restricted to some nodes, to bring WHERE conjuncts down to the joins
 *       it captures; their configurations keep their types when the operands are replaced.
 *   <li><b>Changelog mode inference</b> ({@code FlinkChangelogModeInferenceProgram}, inside {@code
 *       physical_rewrite}) knows a fixed list of node classes. Presented as a temporal join, the
 *       node would get its build input without UPDATE_BEFORE messages, and without a primary key
 *       the operator could no longer retract old build rows. So during {@code physical_rewrite} the
 *       join is presented as a process table function with two table arguments, a probe argument
 *       that takes inserts only and a build argument that takes every change: Flink then asks the
 *       build input for all changes, or for an upsert changelog exactly when the equality keys are
 *       an upsert key of the build input, and an updating probe input fails the inference. That
 *       failure is rethrown with a message about the probe input. A build input that cannot deliver
 *       the upsert changelog is dropped from the node (which is then copied with one input); the
 *       rewrite then starts over with that build argument requiring UPDATE_BEFORE.
 *   <li><b>Non-determinism check</b>: after {@code physical_rewrite} the node is swapped back to a
 *       temporal join subclass, which the check handles as a join; it has no case for process table
 *       functions.
 *   <li><b>Time attribute conversion</b> ({@code RelTimeIndicatorConverter}) rejects unknown
 *       logical nodes, so the logical join converts itself.
 *   <li><b>Exec node context</b>: {@code ExecNodeContext#newContext} only accepts Flink's own exec
 *       nodes, so the context is created from its JSON form.
 *   <li><b>Compiled plans</b>: {@code EXECUTE PLAN} can only load Flink's own exec nodes, so the
 *       join refuses to be translated for {@code COMPILE PLAN}, which Flink signals with the {@code
 *       isCompiled} flag of {@code FlinkPhysicalRel#translateToExecNode}.
 *   <li><b>Table API</b>: the function catalog, catalog manager and module manager of an
 *       environment come from its planner; the environment of a table from {@code TableImpl};
 *       Flink's bridge of a function definition into SQL is a {@code BridgingSqlFunction}, and
 *       Calcite's chain of operator tables hands each table the same overload list, so a later
 *       table can remove a bridge; Flink appends the system arguments of {@code
 *       SystemTypeInference} to every process table function call; and a call resolved for {@code
 *       joinLateral} is recognized by {@code OperationTreeBuilder#joinLateral} on the stack, the
 *       only sign of it a function gets.
 * </ul>
 *
 * <p>Each assumption has a guard test ({@code FlinkPlannerInternalsTest}) that fails with a clear
 * message when an upgrade of Flink breaks it.
 */
public final class FlinkPlannerInternals {

    private FlinkPlannerInternals() {}

    // ---- optimizer programs ----

    /** The name of the program that captures LATERAL SNAPSHOT joins. */
    public static final String CAPTURE_PROGRAM = "lateral_snapshot_capture";

    /**
     * The capture runs after sub-query rewriting and decorrelation (which produce the joins it
     * matches) and before the default rewrite, which would push projections between the join and
     * the {@code SNAPSHOT} scan.
     */
    public static final String CAPTURE_BEFORE_PHASE = FlinkStreamProgram.DEFAULT_REWRITE();

    /** The phases the stream program extension needs, in the order they run. */
    public static final List<String> STREAM_PHASES =
            List.of(
                    FlinkStreamProgram.DEFAULT_REWRITE(),
                    FlinkStreamProgram.PROJECT_REWRITE(),
                    FlinkStreamProgram.LOGICAL(),
                    FlinkStreamProgram.PHYSICAL(),
                    FlinkStreamProgram.PHYSICAL_REWRITE());

    /** The phases the batch program extension needs. */
    public static final List<String> BATCH_PHASES = List.of(FlinkBatchProgram.DEFAULT_REWRITE());

    /**
     * Flink's stream program for the given configuration, extended.
     *
     * @param capture the program that replaces joins with {@code SNAPSHOT} by the join node
     * @param projectRules rules for Flink's projection push-down phase
     * @param logicalRules rules for Flink's logical phase (conversion to Flink's convention)
     * @param physicalRules rules for Flink's physical phase
     */
    public static FlinkChainedProgram<StreamOptimizeContext> streamProgram(
            ReadableConfig config,
            FlinkOptimizeProgram<StreamOptimizeContext> capture,
            RuleSet projectRules,
            RuleSet logicalRules,
            RuleSet physicalRules) {
        FlinkChainedProgram<StreamOptimizeContext> program =
                FlinkStreamProgram.buildProgram(config);
        checkPhases(program, STREAM_PHASES, "stream");
        program.addBefore(CAPTURE_BEFORE_PHASE, CAPTURE_PROGRAM, capture);
        ruleSetProgram(program, FlinkStreamProgram.PROJECT_REWRITE()).add(projectRules);
        ruleSetProgram(program, FlinkStreamProgram.LOGICAL()).add(logicalRules);
        ruleSetProgram(program, FlinkStreamProgram.PHYSICAL()).add(physicalRules);
        replace(
                program,
                FlinkStreamProgram.PHYSICAL_REWRITE(),
                FlinkPlannerInternals::presentJoinsAsProcessTableFunctions);
        return program;
    }

    /** Flink's batch program for the given configuration, extended with the capture program. */
    public static FlinkChainedProgram<BatchOptimizeContext> batchProgram(
            ReadableConfig config, FlinkOptimizeProgram<BatchOptimizeContext> capture) {
        FlinkChainedProgram<BatchOptimizeContext> program = FlinkBatchProgram.buildProgram(config);
        checkPhases(program, BATCH_PHASES, "batch");
        program.addBefore(FlinkBatchProgram.DEFAULT_REWRITE(), CAPTURE_PROGRAM, capture);
        return program;
    }

    private static void checkPhases(
            FlinkChainedProgram<?> program, List<String> phases, String mode) {
        List<String> names = program.getProgramNames();
        for (String phase : phases) {
            if (!names.contains(phase)) {
                throw new TableException(
                        String.format(
                                "LATERAL SNAPSHOT cannot extend Flink's %s optimizer: it has no"
                                        + " phase '%s' (phases: %s). This library is built for"
                                        + " Flink 2.3.0 only.",
                                mode, phase, names));
            }
        }
    }

    private static <OC extends FlinkOptimizeContext> FlinkRuleSetProgram<OC> ruleSetProgram(
            FlinkChainedProgram<OC> program, String phase) {
        FlinkOptimizeProgram<OC> phaseProgram = program.get(phase).get();
        if (!(phaseProgram instanceof FlinkRuleSetProgram)) {
            throw new TableException(
                    String.format(
                            "LATERAL SNAPSHOT cannot add rules to Flink's optimizer phase '%s': it"
                                    + " is a %s, not a rule set program. This library is built"
                                    + " for Flink 2.3.0 only.",
                            phase, phaseProgram.getClass().getName()));
        }
        return (FlinkRuleSetProgram<OC>) phaseProgram;
    }

    private static <OC extends FlinkOptimizeContext> void replace(
            FlinkChainedProgram<OC> program,
            String phase,
            UnaryOperator<FlinkOptimizeProgram<OC>> wrapper) {
        List<String> names = program.getProgramNames();
        int position = names.indexOf(phase);
        FlinkOptimizeProgram<OC> wrapped = wrapper.apply(program.remove(phase).get());
        if (position == names.size() - 1) {
            program.addLast(phase, wrapped);
        } else {
            program.addBefore(names.get(position + 1), phase, wrapped);
        }
    }

    /**
     * Flink's own filter push-down rules, restricted to the nodes the predicate accepts (a join, a
     * projection, or the lower of two filters): a filter above a join moves into the join condition
     * and into the inputs it may move into for the join type, never into an event-time temporal
     * join; conjuncts of an inner join's condition that reference one input move into it; a filter
     * moves below a projection unless it references a non-deterministic expression of it; two
     * filters merge. These are rules of Flink's {@code predicate_pushdown} phase, so what they
     * rewrite early is rewritten as Flink would rewrite it later.
     */
    public static RuleSet filterPushDownRules(Predicate<RelNode> accepted) {
        return RuleSets.ofList(
                FlinkFilterJoinRule.FILTER_INTO_JOIN
                        .config
                        .withOperandSupplier(
                                filter ->
                                        filter.operand(Filter.class)
                                                .oneInput(
                                                        join ->
                                                                join.operand(Join.class)
                                                                        .predicate(accepted)
                                                                        .anyInputs()))
                        .withDescription("LateralSnapshotFilterIntoJoinRule")
                        .as(FlinkFilterIntoJoinRuleConfig.class)
                        .toRule(),
                FlinkFilterJoinRule.JOIN_CONDITION_PUSH
                        .config
                        .withOperandSupplier(
                                join -> join.operand(Join.class).predicate(accepted).anyInputs())
                        .withDescription("LateralSnapshotJoinConditionPushRule")
                        .as(FlinkFilterJoinRuleConfig.class)
                        .toRule(),
                FlinkFilterProjectTransposeRule.build(
                        FilterProjectTransposeRule.Config.DEFAULT
                                .withOperandFor(
                                        Filter.class,
                                        filter ->
                                                !RexUtil.containsCorrelation(filter.getCondition()),
                                        Project.class,
                                        accepted::test)
                                .withDescription("LateralSnapshotFilterProjectTransposeRule")
                                .as(FilterProjectTransposeRule.Config.class)),
                FilterMergeRule.Config.DEFAULT
                        .withOperandSupplier(
                                upper ->
                                        upper.operand(Filter.class)
                                                .oneInput(
                                                        lower ->
                                                                lower.operand(Filter.class)
                                                                        .predicate(accepted)
                                                                        .anyInputs()))
                        .withDescription("LateralSnapshotFilterMergeRule")
                        .as(FilterMergeRule.Config.class)
                        .toRule());
    }

    // ---- changelog mode inference ----

    /**
     * The start of the message with which Flink's changelog mode inference rejects an updating
     * input of the disguised join; only the probe input can be rejected.
     */
    static final String PROBE_UPDATES_ERROR_PREFIX =
            StreamPhysicalLateralSnapshotJoin.class.getSimpleName() + " doesn't support consuming ";

    /**
     * Runs {@code physical_rewrite} with every join presented as a process table function.
     *
     * <p>Flink asks the build input of the disguise for an upsert changelog (no UPDATE_BEFORE) when
     * the equality keys are an upsert key of it. Not every such input can deliver one: a filter on
     * a column outside the key, for one, cannot (an update that leaves the filter would have to
     * become a delete). For its own temporal join Flink then asks again with UPDATE_BEFORE; for a
     * process table function it drops the input instead, and the disguise is copied with one input.
     * The disguise reports that, and the rewrite starts over with the build argument of that join
     * requiring UPDATE_BEFORE, as for a build input not keyed by the equality keys. The operator
     * still keeps one row per key when the upsert key lies within the equality keys (see {@link
     * StreamPhysicalLateralSnapshotJoin}).
     */
    static FlinkOptimizeProgram<StreamOptimizeContext> presentJoinsAsProcessTableFunctions(
            FlinkOptimizeProgram<StreamOptimizeContext> physicalRewrite) {
        return (root, context) -> {
            // The joins of root whose build argument requires UPDATE_BEFORE.
            Set<RelNode> retractingJoins = Collections.newSetFromMap(new IdentityHashMap<>());
            while (true) {
                RelNode disguised =
                        swap(root, (original, node) -> disguise(original, node, retractingJoins));
                RelNode rewritten;
                try {
                    rewritten = rewrite(physicalRewrite, disguised, context);
                } catch (InputDroppedException dropped) {
                    if (!retractingJoins.add(dropped.join)) {
                        throw inputsCannotBeDelivered(dropped);
                    }
                    continue;
                }
                return swap(rewritten, (original, node) -> undisguise(node));
            }
        };
    }

    private static RelNode rewrite(
            FlinkOptimizeProgram<StreamOptimizeContext> physicalRewrite,
            RelNode disguised,
            StreamOptimizeContext context) {
        try {
            return physicalRewrite.optimize(disguised, context);
        } catch (TableException e) {
            String message = e.getMessage();
            if (message != null && message.startsWith(PROBE_UPDATES_ERROR_PREFIX)) {
                ValidationException error =
                        new ValidationException(
                                "The probe (left) input of LATERAL SNAPSHOT join doesn't"
                                        + " support consuming "
                                        + message.substring(PROBE_UPDATES_ERROR_PREFIX.length()));
                // Suppressed, not the cause: the SQL Client shows the root cause only, and
                // Flink's message names our internal node instead of the probe input.
                error.addSuppressed(e);
                throw error;
            }
            throw e;
        }
    }

    /**
     * For an input Flink refuses even with UPDATE_BEFORE. None is known on Flink 2.3 (every node it
     * visits can deliver UPDATE_BEFORE, and an updating probe input fails before), so this ends the
     * retries should another version have one.
     */
    private static ValidationException inputsCannotBeDelivered(InputDroppedException dropped) {
        ValidationException error =
                new ValidationException(
                        String.format(
                                "The LATERAL SNAPSHOT join %s cannot be planned: Flink cannot"
                                        + " deliver its probe (left) input as inserts only"
                                        + " together with its build (right) input as a changelog"
                                        + " with UPDATE_BEFORE messages. Simplify the build input,"
                                        + " for example by writing it to a table first and"
                                        + " joining that table.",
                                dropped.join.getRelDetailedDescription()));
        error.addSuppressed(dropped);
        return error;
    }

    private static RelNode disguise(RelNode original, RelNode node, Set<RelNode> retractingJoins) {
        if (!(node instanceof StreamPhysicalLateralSnapshotJoin)) {
            return node;
        }
        // The disguise remembers the join of root, which is the same in every attempt; node is
        // that join with its inputs disguised.
        return new ChangelogInferenceNode(
                node.getTraitSet(),
                node.getInputs(),
                (StreamPhysicalLateralSnapshotJoin) original,
                retractingJoins.contains(original));
    }

    private static RelNode undisguise(RelNode node) {
        return node instanceof ChangelogInferenceNode
                ? ((ChangelogInferenceNode) node).toJoin()
                : node;
    }

    /**
     * Applies a node replacement bottom-up; shared sub-plans stay shared. The replacement gets the
     * original node and the node with the replaced inputs.
     */
    private static RelNode swap(RelNode root, BinaryOperator<RelNode> replacement) {
        return swap(root, replacement, new IdentityHashMap<>());
    }

    private static RelNode swap(
            RelNode node, BinaryOperator<RelNode> replacement, Map<RelNode, RelNode> done) {
        RelNode swapped = done.get(node);
        if (swapped != null) {
            return swapped;
        }
        List<RelNode> inputs = new ArrayList<>();
        boolean inputsChanged = false;
        for (RelNode input : node.getInputs()) {
            RelNode newInput = swap(input, replacement, done);
            inputsChanged |= newInput != input;
            inputs.add(newInput);
        }
        RelNode withInputs = inputsChanged ? node.copy(node.getTraitSet(), inputs) : node;
        swapped = replacement.apply(node, withInputs);
        done.put(node, swapped);
        return swapped;
    }

    /**
     * Thrown when Flink's changelog mode inference copies the disguise with an input missing: it
     * could not give that input the changes the table argument asked for.
     */
    private static final class InputDroppedException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        final transient StreamPhysicalLateralSnapshotJoin join;

        InputDroppedException(StreamPhysicalLateralSnapshotJoin join, int inputCount) {
            // Control flow within the rewrite: no stack trace.
            super(
                    String.format(
                            "Flink's changelog mode inference kept %d of the 2 inputs of %s.",
                            inputCount, join.getRelDetailedDescription()),
                    null,
                    false,
                    false);
            this.join = join;
        }
    }

    /**
     * The join as Flink's changelog mode inference should see it: a process table function whose
     * table arguments are the probe input (set semantics, partitioned by the probe keys, inserts
     * only) and the build input (set semantics, partitioned by the build keys, all changes, with
     * UPDATE_BEFORE if {@code buildRequiresUpdateBefore}). Its output is insert-only. It is never
     * translated; the join is restored after {@code physical_rewrite}, with the changelog traits
     * the inference assigned.
     */
    static final class ChangelogInferenceNode extends StreamPhysicalProcessTableFunction {

        private final StreamPhysicalLateralSnapshotJoin join;

        private final boolean buildRequiresUpdateBefore;

        ChangelogInferenceNode(
                RelTraitSet traitSet,
                List<RelNode> inputs,
                StreamPhysicalLateralSnapshotJoin join,
                boolean buildRequiresUpdateBefore) {
            super(
                    join.getCluster(),
                    traitSet,
                    inputs,
                    callHolder(
                            join.getCluster(),
                            inputs,
                            join.joinSpec(),
                            join.getRowType(),
                            buildRequiresUpdateBefore),
                    join.getRowType());
            this.join = join;
            this.buildRequiresUpdateBefore = buildRequiresUpdateBefore;
        }

        StreamPhysicalLateralSnapshotJoin toJoin() {
            return (StreamPhysicalLateralSnapshotJoin)
                    join.copy(
                            getTraitSet(),
                            join.getCondition(),
                            getInputs().get(0),
                            getInputs().get(1),
                            join.getJoinType(),
                            false);
        }

        @Override
        public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
            if (inputs.size() != 2) {
                throw new InputDroppedException(join, inputs.size());
            }
            return new ChangelogInferenceNode(traitSet, inputs, join, buildRequiresUpdateBefore);
        }

        @Override
        public String getRelTypeName() {
            // Errors and plans printed during the inference name the join.
            return join.getRelTypeName();
        }

        @Override
        public RelWriter explainTerms(RelWriter pw) {
            return toJoin().explainTerms(pw);
        }

        @Override
        public double estimateRowCount(RelMetadataQuery mq) {
            return mq.getRowCount(getInputs().get(0));
        }

        @Override
        public ExecNode<?> translateToExecNode() {
            throw new IllegalStateException(
                    "A LATERAL SNAPSHOT join was not restored after changelog mode inference.");
        }
    }

    private static FlinkLogicalTableFunctionScan callHolder(
            RelOptCluster cluster,
            List<RelNode> inputs,
            JoinSpec joinSpec,
            RelDataType rowType,
            boolean buildRequiresUpdateBefore) {
        RexBuilder rexBuilder = cluster.getRexBuilder();
        BridgingSqlFunction function =
                BridgingSqlFunction.of(
                        cluster,
                        ContextResolvedFunction.permanent(
                                FunctionIdentifier.of(ChangelogInferenceFunction.NAME),
                                buildRequiresUpdateBefore
                                        ? ChangelogInferenceFunction.RETRACTING_BUILD
                                        : ChangelogInferenceFunction.UPSERTING_BUILD));
        RelDataType defaultType = cluster.getTypeFactory().createSqlType(SqlTypeName.VARCHAR);
        List<RexNode> operands =
                List.of(
                        tableArgument(inputs.get(0), 0, joinSpec.getLeftKeys()),
                        tableArgument(inputs.get(1), 1, joinSpec.getRightKeys()),
                        // on_time and uid, which every process table function has.
                        rexBuilder.makeCall(defaultType, SqlStdOperatorTable.DEFAULT, List.of()),
                        rexBuilder.makeCall(defaultType, SqlStdOperatorTable.DEFAULT, List.of()));
        RexNode call = rexBuilder.makeCall(rowType, function, operands);
        return new FlinkLogicalTableFunctionScan(
                cluster,
                cluster.traitSetOf(FlinkConventions.LOGICAL()),
                List.of(),
                call,
                null,
                rowType,
                null);
    }

    private static RexTableArgCall tableArgument(RelNode input, int index, int[] partitionKeys) {
        return new RexTableArgCall(
                input.getRowType(),
                index,
                partitionKeys,
                new int[0],
                new RexTableArgCall.SortOrder[0]);
    }

    /** The signature of the disguise; never called. */
    private static final class ChangelogInferenceFunction implements FunctionDefinition {

        static final String NAME = "lateral_snapshot_join";

        /** The build input may be an upsert changelog when the equality keys are an upsert key. */
        static final ChangelogInferenceFunction UPSERTING_BUILD =
                new ChangelogInferenceFunction(
                        EnumSet.of(
                                StaticArgumentTrait.TABLE,
                                StaticArgumentTrait.SET_SEMANTIC_TABLE,
                                StaticArgumentTrait.SUPPORT_UPDATES));

        /** The build input keeps its UPDATE_BEFORE messages, whatever its keys. */
        static final ChangelogInferenceFunction RETRACTING_BUILD =
                new ChangelogInferenceFunction(
                        EnumSet.of(
                                StaticArgumentTrait.TABLE,
                                StaticArgumentTrait.SET_SEMANTIC_TABLE,
                                StaticArgumentTrait.SUPPORT_UPDATES,
                                StaticArgumentTrait.REQUIRE_UPDATE_BEFORE));

        private final EnumSet<StaticArgumentTrait> buildTraits;

        private ChangelogInferenceFunction(EnumSet<StaticArgumentTrait> buildTraits) {
            this.buildTraits = buildTraits;
        }

        @Override
        public FunctionKind getKind() {
            return FunctionKind.PROCESS_TABLE;
        }

        @Override
        public TypeInference getTypeInference(DataTypeFactory typeFactory) {
            // With two table arguments Flink only accepts set semantics.
            return TypeInference.newBuilder()
                    .staticArguments(
                            StaticArgument.table(
                                    "probe",
                                    Row.class,
                                    false,
                                    EnumSet.of(
                                            StaticArgumentTrait.TABLE,
                                            StaticArgumentTrait.SET_SEMANTIC_TABLE)),
                            StaticArgument.table("build", Row.class, false, buildTraits))
                    .outputTypeStrategy(TypeStrategies.explicit(DataTypes.ROW()))
                    .build();
        }

        @Override
        public String toString() {
            return NAME;
        }
    }

    // ---- time attributes ----

    /** Whether the shuttle is Flink's conversion of time attributes. */
    public static boolean isTimeIndicatorConversion(RelShuttle shuttle) {
        return shuttle instanceof RelTimeIndicatorConverter;
    }

    /**
     * Converts the time attributes around a join, for Flink's time attribute conversion: the inputs
     * are converted as usual; in the output the probe attributes stay time attributes (the output
     * watermark is the probe watermark), the build attributes become plain timestamps, as for
     * Flink's temporal joins.
     */
    public static RelNode convertTimeIndicators(
            FlinkLogicalLateralSnapshotJoin join, RelShuttle converter) {
        // The join condition is generated code without access to the clock, so processing time
        // attributes it reads are materialized below the join, as for Flink's regular joins.
        ImmutableBitSet conditionFields = RelOptUtil.InputFinder.bits(join.getCondition());
        int probeFieldCount = join.getLeft().getRowType().getFieldCount();
        int fieldCount = probeFieldCount + join.getRight().getRowType().getFieldCount();
        RelNode probe =
                materializeProctime(
                        join.getLeft().accept(converter), conditionFields.get(0, probeFieldCount));
        RelNode build =
                materializeProctime(
                        join.getRight().accept(converter),
                        conditionFields
                                .get(probeFieldCount, fieldCount)
                                .shift(-probeFieldCount));
        List<RelDataTypeField> inputFields = new ArrayList<>(probe.getRowType().getFieldList());
        inputFields.addAll(build.getRowType().getFieldList());
        // Time attributes materialized in the inputs change their type.
        RexNode condition =
                join.getCondition()
                        .accept(
                                new RexShuttle() {
                                    @Override
                                    public RexNode visitInputRef(RexInputRef inputRef) {
                                        return RexInputRef.of(inputRef.getIndex(), inputFields);
                                    }
                                });
        FlinkLogicalLateralSnapshotJoin converted =
                join.copy(join.getTraitSet(), probe, build, condition, join.getArguments());

        RexBuilder rexBuilder = join.getCluster().getRexBuilder();
        FlinkTypeFactory typeFactory = (FlinkTypeFactory) rexBuilder.getTypeFactory();
        List<RelDataTypeField> fields = converted.getRowType().getFieldList();
        List<RexNode> projects = new ArrayList<>();
        boolean materialized = false;
        for (RelDataTypeField field : fields) {
            RexNode ref = new RexInputRef(field.getIndex(), field.getType());
            RelDataType type = field.getType();
            if (field.getIndex() >= probeFieldCount && FlinkTypeFactory.isTimeIndicatorType(type)) {
                materialized = true;
                ref =
                        FlinkTypeFactory.isRowtimeIndicatorType(type)
                                ? rexBuilder.makeAbstractCast(
                                        typeFactory.createFieldTypeFromLogicalType(
                                                plainTimestamp(type)),
                                        ref,
                                        false)
                                : rexBuilder.makeCall(
                                        FlinkSqlOperatorTable.PROCTIME_MATERIALIZE, ref);
            }
            projects.add(ref);
        }
        if (!materialized) {
            return converted;
        }
        return FlinkLogicalCalc.create(
                converted,
                RexProgram.create(
                        converted.getRowType(),
                        projects,
                        null,
                        converted.getRowType().getFieldNames(),
                        rexBuilder));
    }

    /** Materializes the processing time attributes among the given fields of the input. */
    private static RelNode materializeProctime(RelNode input, ImmutableBitSet fields) {
        RexBuilder rexBuilder = input.getCluster().getRexBuilder();
        List<RexNode> projects = new ArrayList<>();
        boolean materialized = false;
        for (RelDataTypeField field : input.getRowType().getFieldList()) {
            RexNode ref = new RexInputRef(field.getIndex(), field.getType());
            if (fields.get(field.getIndex())
                    && FlinkTypeFactory.isProctimeIndicatorType(field.getType())) {
                materialized = true;
                ref = rexBuilder.makeCall(FlinkSqlOperatorTable.PROCTIME_MATERIALIZE, ref);
            }
            projects.add(ref);
        }
        if (!materialized) {
            return input;
        }
        return FlinkLogicalCalc.create(
                input,
                RexProgram.create(
                        input.getRowType(),
                        projects,
                        null,
                        input.getRowType().getFieldNames(),
                        rexBuilder));
    }

    private static LogicalType plainTimestamp(RelDataType timeIndicator) {
        return timeIndicator.getSqlTypeName() == SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE
                ? new LocalZonedTimestampType(timeIndicator.isNullable(), 3)
                : new TimestampType(timeIndicator.isNullable(), 3);
    }

    // ---- exec nodes ----

    /** The type of the exec node in Flink's {@code <name>_<version>} form. */
    public static final String EXEC_NODE_TYPE = "lateral-snapshot-join_1";

    public static int newExecNodeId() {
        return ExecNodeContext.newNodeId();
    }

    /**
     * A context for the exec node. {@code ExecNodeContext#newContext} rejects any class that is not
     * on Flink's list of exec nodes; the JSON constructor takes the type as it is.
     */
    public static ExecNodeContext newExecNodeContext() {
        return new ExecNodeContext(EXEC_NODE_TYPE);
    }

    // ---- compiled plans ----

    static final String COMPILED_PLAN_MESSAGE =
            "Compiled plans (COMPILE PLAN, TablePipeline#compilePlan, StatementSet#compilePlan) are"
                    + " not supported for LATERAL SNAPSHOT joins on Flink 2.3: EXECUTE PLAN can only"
                    + " load Flink's own exec nodes, so the plan could never run. Submit the"
                    + " statement itself instead (for example INSERT INTO ... SELECT ... JOIN"
                    + " LATERAL SNAPSHOT(...), or TablePipeline#execute()). Its state is kept in"
                    + " checkpoints and savepoints like that of any other job: stop it with a"
                    + " savepoint and submit the same statement with"
                    + " 'execution.state-recovery.path' to resume.";

    /**
     * Fails when the join is translated for a compiled plan; {@code isCompiled} is the flag of
     * {@code FlinkPhysicalRel#translateToExecNode(boolean)}, true only for {@code COMPILE PLAN}.
     */
    public static void checkNotCompiled(boolean isCompiled) {
        if (isCompiled) {
            throw new TableException(COMPILED_PLAN_MESSAGE);
        }
    }

    // ---- Table API ----

    /**
     * The planner context of an environment, which holds its function catalog, catalog manager and
     * module manager; the public API exposes none of them.
     */
    public static FlinkContext flinkContext(TableEnvironment env) {
        if (!(env instanceof TableEnvironmentImpl)
                || !(((TableEnvironmentImpl) env).getPlanner() instanceof PlannerBase)) {
            throw new TableException(
                    String.format(
                            "LATERAL SNAPSHOT can only be installed in a table environment of"
                                    + " Flink's own planner, but got %s.",
                            env.getClass().getName()));
        }
        return ((PlannerBase) ((TableEnvironmentImpl) env).getPlanner()).getFlinkContext();
    }

    /** The environment a table belongs to; the public {@code Table} interface does not tell. */
    public static TableEnvironment tableEnvironment(Table table) {
        if (!(table instanceof TableImpl)) {
            throw new TableException(
                    String.format(
                            "LATERAL SNAPSHOT needs a table of Flink's Table API, but got %s.",
                            table.getClass().getName()));
        }
        return ((TableImpl) table).getTableEnvironment();
    }

    /** The function definition behind an operator Flink bridged from its function catalog. */
    public static Optional<FunctionDefinition> bridgedFunction(SqlOperator operator) {
        return operator instanceof BridgingSqlFunction
                ? Optional.of(((BridgingSqlFunction) operator).getDefinition())
                : Optional.empty();
    }

    /** The class and method through which every lateral join of the Table API resolves its call. */
    static final String JOIN_LATERAL_CLASS = OperationTreeBuilder.class.getName();

    static final String JOIN_LATERAL_METHOD = "joinLateral";

    /**
     * Whether the current thread is resolving the function call of {@code Table#joinLateral} or
     * {@code Table#leftOuterJoinLateral}. The resolution gives the function no other sign of it,
     * and Flink 2.3 cannot run {@code SNAPSHOT} there; this lets the function say so at once,
     * with the form that works, instead of Flink's errors about table references and predicates.
     * Only consulted while the function's type inference is requested.
     */
    public static boolean isResolvingJoinLateral() {
        return StackWalker.getInstance()
                .walk(
                        frames ->
                                frames.anyMatch(
                                        frame ->
                                                frame.getClassName().equals(JOIN_LATERAL_CLASS)
                                                        && frame.getMethodName()
                                                                .equals(JOIN_LATERAL_METHOD)));
    }
}
