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

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.catalog.ContextResolvedFunction;
import org.apache.flink.table.catalog.DataTypeFactory;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.functions.FunctionIdentifier;
import org.apache.flink.table.functions.FunctionKind;
import org.apache.flink.table.planner.calcite.RexTableArgCall;
import org.apache.flink.table.planner.functions.bridging.BridgingSqlFunction;
import org.apache.flink.table.planner.plan.nodes.FlinkConventions;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.logical.FlinkLogicalTableFunctionScan;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalProcessTableFunction;
import org.apache.flink.table.types.inference.StaticArgument;
import org.apache.flink.table.types.inference.StaticArgumentTrait;
import org.apache.flink.table.types.inference.TypeInference;
import org.apache.flink.table.types.inference.TypeStrategies;
import org.apache.flink.types.Row;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

/**
 * A two-input node as Flink's changelog mode inference ({@code FlinkChangelogModeInferenceProgram},
 * inside {@code physical_rewrite}) should see it: a process table function with two table
 * arguments, a probe argument that takes inserts only and a build argument that takes every change,
 * both with set semantics (row semantics is refused with two table arguments) and partitioned by
 * the join keys. The output is insert-only.
 *
 * <p>What the inference does with it, and what a new Flink version could change:
 *
 * <ul>
 *   <li>It asks the build input for all changes, or for an upsert changelog (no UPDATE_BEFORE)
 *       exactly when the build keys are an upsert key of that input, unless the build argument
 *       requires UPDATE_BEFORE.
 *   <li>An input that cannot deliver what its argument asks for is dropped: the node is copied with
 *       fewer inputs. {@link #copy} turns that into an {@link InputDroppedException}.
 *   <li>An updating probe input fails with a {@link TableException} "{@code <node> doesn't support
 *       consuming ...}" ({@link #rejectedChanges}).
 * </ul>
 *
 * <p>The disguise is never translated: the node it stands in for is restored after the inference,
 * with the changelog traits the inference assigned.
 */
public abstract class ProcessTableFunctionDisguise extends StreamPhysicalProcessTableFunction {

    private final boolean buildRequiresUpdateBefore;

    /**
     * @param inputs the probe input, then the build input
     * @param probeKeys the join keys of the probe input
     * @param buildKeys the join keys of the build input, in the order of the probe keys
     * @param buildRequiresUpdateBefore whether the build input must deliver UPDATE_BEFORE messages
     *     whatever its keys
     */
    protected ProcessTableFunctionDisguise(
            RelOptCluster cluster,
            RelTraitSet traitSet,
            List<RelNode> inputs,
            int[] probeKeys,
            int[] buildKeys,
            RelDataType rowType,
            boolean buildRequiresUpdateBefore) {
        super(
                cluster,
                traitSet,
                inputs,
                callHolder(
                        cluster, inputs, probeKeys, buildKeys, rowType, buildRequiresUpdateBefore),
                rowType);
        this.buildRequiresUpdateBefore = buildRequiresUpdateBefore;
    }

    /** Whether the build argument requires UPDATE_BEFORE messages. */
    public final boolean buildRequiresUpdateBefore() {
        return buildRequiresUpdateBefore;
    }

    /** A copy with both inputs; the inference copies the node whenever it changes an input. */
    protected abstract RelNode copyWithInputs(RelTraitSet traitSet, List<RelNode> inputs);

    @Override
    public final RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
        if (inputs.size() != 2) {
            throw new InputDroppedException(this, inputs.size());
        }
        return copyWithInputs(traitSet, inputs);
    }

    @Override
    public final ExecNode<?> translateToExecNode() {
        throw new IllegalStateException(
                "A LATERAL SNAPSHOT join was not restored after changelog mode inference.");
    }

    /**
     * The rest of the message with which Flink's changelog mode inference rejects the changes an
     * input produces for the node whose {@code getRelTypeName()} is {@code relTypeName}: what
     * follows "{@code <relTypeName> doesn't support consuming }". Empty for any other error.
     */
    public static Optional<String> rejectedChanges(TableException error, String relTypeName) {
        String prefix = relTypeName + " doesn't support consuming ";
        String message = error.getMessage();
        return message != null && message.startsWith(prefix)
                ? Optional.of(message.substring(prefix.length()))
                : Optional.empty();
    }

    private static FlinkLogicalTableFunctionScan callHolder(
            RelOptCluster cluster,
            List<RelNode> inputs,
            int[] probeKeys,
            int[] buildKeys,
            RelDataType rowType,
            boolean buildRequiresUpdateBefore) {
        RexBuilder rexBuilder = cluster.getRexBuilder();
        BridgingSqlFunction function =
                BridgingSqlFunction.of(
                        cluster,
                        ContextResolvedFunction.permanent(
                                FunctionIdentifier.of(Signature.NAME),
                                buildRequiresUpdateBefore
                                        ? Signature.RETRACTING_BUILD
                                        : Signature.UPSERTING_BUILD));
        RelDataType defaultType = cluster.getTypeFactory().createSqlType(SqlTypeName.VARCHAR);
        List<RexNode> operands =
                List.of(
                        tableArgument(inputs.get(0), 0, probeKeys),
                        tableArgument(inputs.get(1), 1, buildKeys),
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

    /**
     * Thrown when Flink's changelog mode inference copies the disguise with an input missing: it
     * could not give that input the changes the table argument asked for.
     */
    public static final class InputDroppedException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final transient ProcessTableFunctionDisguise disguise;

        private InputDroppedException(ProcessTableFunctionDisguise disguise, int inputCount) {
            // Control flow within the rewrite: no stack trace.
            super(
                    String.format(
                            "Flink's changelog mode inference kept %d of the 2 inputs of %s.",
                            inputCount, disguise.getRelDetailedDescription()),
                    null,
                    false,
                    false);
            this.disguise = disguise;
        }

        /** The disguise that lost an input. */
        public ProcessTableFunctionDisguise disguise() {
            return disguise;
        }
    }

    /** The signature of the disguise; never called. */
    private static final class Signature implements FunctionDefinition {

        static final String NAME = "lateral_snapshot_join";

        /** The build input may be an upsert changelog when the build keys are an upsert key. */
        static final Signature UPSERTING_BUILD =
                new Signature(
                        EnumSet.of(
                                StaticArgumentTrait.TABLE,
                                StaticArgumentTrait.SET_SEMANTIC_TABLE,
                                StaticArgumentTrait.SUPPORT_UPDATES));

        /** The build input keeps its UPDATE_BEFORE messages, whatever its keys. */
        static final Signature RETRACTING_BUILD =
                new Signature(
                        EnumSet.of(
                                StaticArgumentTrait.TABLE,
                                StaticArgumentTrait.SET_SEMANTIC_TABLE,
                                StaticArgumentTrait.SUPPORT_UPDATES,
                                StaticArgumentTrait.REQUIRE_UPDATE_BEFORE));

        private final EnumSet<StaticArgumentTrait> buildTraits;

        private Signature(EnumSet<StaticArgumentTrait> buildTraits) {
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
}
