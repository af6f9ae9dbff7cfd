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

package dev.lateralsnapshot.planner.functions;

import dev.lateralsnapshot.planner.internal.JoinLateralResolution;
import dev.lateralsnapshot.planner.internal.ProcessTableFunctionSignature;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.DataTypeFactory;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.functions.ProcessTableFunction;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.inference.ArgumentCount;
import org.apache.flink.table.types.inference.CallContext;
import org.apache.flink.table.types.inference.ConstantArgumentCount;
import org.apache.flink.table.types.inference.InputTypeStrategy;
import org.apache.flink.table.types.inference.Signature;
import org.apache.flink.table.types.inference.StaticArgument;
import org.apache.flink.table.types.inference.StaticArgumentTrait;
import org.apache.flink.table.types.inference.TypeInference;
import org.apache.flink.table.types.utils.DataTypeUtils;
import org.apache.flink.types.ColumnList;
import org.apache.flink.types.Row;

import org.apache.calcite.rex.RexNode;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

/**
 * {@code SNAPSHOT} as the Table API sees it: a process table function, because {@code
 * TableEnvironment#fromCall} only accepts process table functions. It names the build side of a
 * LATERAL SNAPSHOT join and is never executed: the planner captures the join it is the right-hand
 * side of exactly as it captures a join with the SQL form ({@link SnapshotTableFunction}):
 *
 * <pre>{@code
 * Table snapshot = env.fromCall("SNAPSHOT",
 *     rates.asArgument("input"), descriptor("update_time").asArgument("on_time"));
 * orders.join(snapshot, $("currency").isEqual($("r_currency")));
 * }</pre>
 *
 * <p>Why SQL keeps its own function: the type inference of process table functions would add the
 * system argument {@code uid} and a {@code rowtime} column to the rows of {@code SNAPSHOT(...)} in
 * SQL, and report argument errors in Flink's words instead of the specified ones. In the Table API
 * both are unavoidable: {@code on_time} and {@code uid} are Flink's system arguments of every
 * process table function (a function may not declare them itself), so the table of {@code fromCall}
 * has the columns of {@code input} plus Flink's {@code rowtime}, a copy of the {@code on_time}
 * column. {@code LateralSnapshot.snapshot(...)} removes it again.
 *
 * <p>{@code joinLateral(call("SNAPSHOT", ...), predicate)}, the Table API's form for table
 * functions, resolves this function too; the library's planner converts that join as the join with
 * the {@code fromCall} table ({@code
 * dev.lateralsnapshot.planner.operations.LateralSnapshotPlanner}). {@code
 * leftOuterJoinLateral(call("SNAPSHOT", ...), predicate)} cannot work on Flink 2.3: right after the
 * call is resolved, Flink rejects every predicate but {@code TRUE} ("Predicate for lateral left
 * outer join with table function can only be empty or literal true."), before any planner runs.
 * This function rejects that form while the call is resolved, just before, with a message that
 * shows the form that works.
 */
public final class SnapshotProcessTableFunction extends ProcessTableFunction<Row> {

    private static final long serialVersionUID = 1L;

    /** The arguments this function declares, in declaration order; Flink appends its own two. */
    private static final List<String> DECLARED_ARGUMENTS =
            List.of(
                    SnapshotTableFunction.INPUT,
                    SnapshotTableFunction.LOAD_COMPLETED_TIME,
                    SnapshotTableFunction.LOAD_COMPLETED_IDLE_TIMEOUT,
                    SnapshotTableFunction.STATE_TTL);

    /** All arguments of a resolved call, in the order of its operands. */
    private static final List<String> CALL_ARGUMENTS = callArguments();

    /** The instance that name lookup returns; the function has no state. */
    public static final SnapshotProcessTableFunction INSTANCE = new SnapshotProcessTableFunction();

    private static final String LEFT_OUTER_JOIN_LATERAL_MESSAGE =
            "LATERAL SNAPSHOT joins cannot be written with leftOuterJoinLateral(call(\"SNAPSHOT\","
                    + " ...), predicate) on Flink 2.3: Flink accepts no predicate there but TRUE."
                    + " Join the snapshot table with leftOuterJoin instead, with the same"
                    + " arguments and predicate; it plans and runs exactly like SQL's LEFT JOIN"
                    + " LATERAL SNAPSHOT(...):\n"
                    + "  orders.leftOuterJoin(env.fromCall(\"SNAPSHOT\","
                    + " rates.asArgument(\"input\"),"
                    + " descriptor(\"update_time\").asArgument(\"on_time\")),"
                    + " $(\"currency\").isEqual($(\"r_currency\")))\n"
                    + "where orders, rates and the columns stand for your tables and columns."
                    + " leftOuterJoinLateral(call(\"SNAPSHOT\", ...)) without a predicate joins"
                    + " ON TRUE, and joinLateral(call(\"SNAPSHOT\", ...), predicate) is the INNER"
                    + " join.";

    private static final TypeInference TYPE_INFERENCE =
            TypeInference.newBuilder()
                    .staticArguments(
                            // Row semantics: the join partitions the build side itself; PARTITION
                            // BY would mean nothing.
                            StaticArgument.table(
                                    SnapshotTableFunction.INPUT,
                                    Row.class,
                                    false,
                                    EnumSet.of(
                                            StaticArgumentTrait.TABLE,
                                            StaticArgumentTrait.ROW_SEMANTIC_TABLE,
                                            StaticArgumentTrait.SUPPORT_UPDATES)),
                            StaticArgument.scalar(
                                    SnapshotTableFunction.LOAD_COMPLETED_TIME,
                                    DataTypes.TIMESTAMP_LTZ(3),
                                    true),
                            // Two interval fields: Flink casts numbers to single-field
                            // intervals implicitly, which would make lit(10) mean 10 ms.
                            StaticArgument.scalar(
                                    SnapshotTableFunction.LOAD_COMPLETED_IDLE_TIMEOUT,
                                    DataTypes.INTERVAL(DataTypes.DAY(), DataTypes.SECOND(3)),
                                    true),
                            StaticArgument.scalar(
                                    SnapshotTableFunction.STATE_TTL,
                                    DataTypes.INTERVAL(DataTypes.DAY(), DataTypes.SECOND(3)),
                                    true))
                    .inputTypeStrategy(new OnTimeCheck())
                    // The build side's time attributes come out as plain timestamps, as in SQL.
                    .outputTypeStrategy(
                            callContext ->
                                    Optional.of(
                                            DataTypeUtils.transform(
                                                    callContext
                                                            .getArgumentDataTypes()
                                                            .get(
                                                                    position(
                                                                            SnapshotTableFunction
                                                                                    .INPUT)),
                                                    DataTypeUtils::removeTimeAttribute)))
                    .build();

    /** Whether the definition is this function, found by name or given by class. */
    public static boolean isSnapshot(FunctionDefinition definition) {
        return definition instanceof SnapshotProcessTableFunction;
    }

    @Override
    public TypeInference getTypeInference(DataTypeFactory typeFactory) {
        // The Table API asks for the type inference before anything else when it resolves a
        // call, and does not wrap what this method throws: the message reaches the user as is.
        // Everything later is too late (Flink's own rejection) or wrapped in Flink's words; this
        // method is shown nothing of the call, so the message cannot name the user's tables.
        if (JoinLateralResolution.isLeftOuterJoinWithPredicate()) {
            throw new ValidationException(LEFT_OUTER_JOIN_LATERAL_MESSAGE);
        }
        return TYPE_INFERENCE;
    }

    /**
     * The operands of a call in the order of {@link SnapshotTableFunction#PARAMETERS}, so that one
     * piece of code reads the arguments of both forms.
     */
    static List<RexNode> operandsInSqlOrder(List<RexNode> callOperands) {
        List<RexNode> operands = new ArrayList<>();
        for (String parameter : SnapshotTableFunction.PARAMETERS) {
            operands.add(callOperands.get(position(parameter)));
        }
        return operands;
    }

    private static int position(String argument) {
        return CALL_ARGUMENTS.indexOf(argument);
    }

    private static List<String> callArguments() {
        List<String> arguments = new ArrayList<>(DECLARED_ARGUMENTS);
        arguments.addAll(ProcessTableFunctionSignature.systemArgumentNames());
        return List.copyOf(arguments);
    }

    /** The name in messages and the {@code uid} Flink derives for an inline call. */
    @Override
    public String toString() {
        return SnapshotTableFunction.NAME;
    }

    // ---- argument checks ----

    /**
     * Checks the {@code on_time} argument with the messages of the SQL function. Flink checks the
     * column too, but only after this strategy and in its own words. The types of the scalar
     * arguments need no check here: Flink checks them against the declared types before, and shows
     * this strategy the declared types only. Flink's process table function layer requires the
     * types to be returned unchanged.
     */
    private static final class OnTimeCheck implements InputTypeStrategy {

        @Override
        public ArgumentCount getArgumentCount() {
            return ConstantArgumentCount.any();
        }

        @Override
        public Optional<List<DataType>> inferInputTypes(
                CallContext callContext, boolean throwOnFailure) {
            try {
                checkOnTime(callContext);
            } catch (ValidationException e) {
                if (throwOnFailure) {
                    throw e;
                }
                return Optional.empty();
            }
            return Optional.of(callContext.getArgumentDataTypes());
        }

        private static void checkOnTime(CallContext callContext) {
            int position = position(SnapshotTableFunction.ON_TIME);
            if (callContext.isArgumentNull(position)) {
                return;
            }
            List<String> columns =
                    callContext
                            .getArgumentValue(position, ColumnList.class)
                            .map(ColumnList::getNames)
                            .orElse(List.of());
            if (columns.size() != 1) {
                throw new ValidationException(
                        String.format(
                                "Argument '%s' of %s must reference exactly one column. Use a"
                                        + " descriptor of one column, for example"
                                        + " descriptor(\"update_time\").asArgument(\"%s\").",
                                SnapshotTableFunction.ON_TIME,
                                SnapshotTableFunction.NAME,
                                SnapshotTableFunction.ON_TIME));
            }
            String column = columns.get(0);
            DataType input =
                    callContext.getArgumentDataTypes().get(position(SnapshotTableFunction.INPUT));
            List<String> inputColumns = DataType.getFieldNames(input);
            int index = inputColumns.indexOf(column);
            if (index < 0) {
                throw SnapshotTableFunction.unknownOnTimeColumn(column, inputColumns);
            }
            SnapshotTableFunction.checkOnTimeType(
                    column, DataType.getFieldDataTypes(input).get(index).getLogicalType());
        }

        @Override
        public List<Signature> getExpectedSignatures(FunctionDefinition definition) {
            return List.of(
                    Signature.of(
                            Signature.Argument.of(SnapshotTableFunction.INPUT, "TABLE"),
                            Signature.Argument.of(SnapshotTableFunction.ON_TIME, "DESCRIPTOR")));
        }
    }
}
