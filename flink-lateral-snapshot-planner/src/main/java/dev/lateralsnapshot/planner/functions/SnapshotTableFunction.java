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

import dev.lateralsnapshot.planner.internal.TimeIndicatorConversion;

import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCallBinding;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperandCountRange;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlTableFunction;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlOperandCountRanges;
import org.apache.calcite.sql.type.SqlOperandMetadata;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.validate.SqlNameMatcher;
import org.apache.calcite.sql.validate.SqlValidator;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The {@code SNAPSHOT} table function, which names the build side of a LATERAL SNAPSHOT join:
 *
 * <pre>{@code
 * SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(update_time)
 *          [, load_completed_time => ...] [, load_completed_idle_timeout => INTERVAL ...]
 *          [, state_ttl => INTERVAL ...])
 * }</pre>
 *
 * <p>The function is never executed. It only exists so that SQL can name the build side and its
 * arguments in the position of a table function; the planner rules replace the join it appears in
 * by a LATERAL SNAPSHOT join node ({@code LateralSnapshotJoinCaptureRule}) or, in batch mode, by a
 * regular join. Its result type is the type of {@code input}, with time attributes as plain
 * timestamps.
 *
 * <p>Why a Calcite function and not a Flink {@code ProcessTableFunction}: the type inference of
 * process table functions rejects updating inputs together with {@code on_time}, and requires
 * PARTITION BY for set semantics; neither fits a build side that may be any changelog.
 *
 * <p>Everything this class checks holds in streaming and batch mode alike: the syntax of the
 * arguments and the types they reference. Checks that depend on the mode (whether {@code on_time}
 * is required, whether it must be a rowtime attribute) happen in the planner rules, where the mode
 * is known. Every error is a {@link ValidationException} with a sentence a user can act on.
 */
public final class SnapshotTableFunction extends SqlFunction implements SqlTableFunction {

    /** The name under which SQL calls the function. */
    public static final String NAME = "SNAPSHOT";

    public static final String INPUT = "input";
    public static final String ON_TIME = "on_time";
    public static final String LOAD_COMPLETED_TIME = "load_completed_time";
    public static final String LOAD_COMPLETED_IDLE_TIMEOUT = "load_completed_idle_timeout";
    public static final String STATE_TTL = "state_ttl";

    /** The parameters in declaration order; a positional call follows this order. */
    public static final List<String> PARAMETERS =
            List.of(INPUT, ON_TIME, LOAD_COMPLETED_TIME, LOAD_COMPLETED_IDLE_TIMEOUT, STATE_TTL);

    public static final int INPUT_POSITION = PARAMETERS.indexOf(INPUT);
    public static final int ON_TIME_POSITION = PARAMETERS.indexOf(ON_TIME);
    public static final int LOAD_COMPLETED_TIME_POSITION = PARAMETERS.indexOf(LOAD_COMPLETED_TIME);
    public static final int LOAD_COMPLETED_IDLE_TIMEOUT_POSITION =
            PARAMETERS.indexOf(LOAD_COMPLETED_IDLE_TIMEOUT);
    public static final int STATE_TTL_POSITION = PARAMETERS.indexOf(STATE_TTL);

    /** The largest precision of an {@code on_time} column: the operator keeps milliseconds. */
    public static final int MAX_ON_TIME_PRECISION = 3;

    public static final SnapshotTableFunction INSTANCE = new SnapshotTableFunction();

    private SnapshotTableFunction() {
        super(
                NAME,
                SqlKind.OTHER_FUNCTION,
                // The type of the call as an operand; its rows are typed by getRowTypeInference.
                ReturnTypes.CURSOR,
                null,
                new OperandMetadata(),
                SqlFunctionCategory.USER_DEFINED_TABLE_FUNCTION);
    }

    @Override
    public SqlReturnTypeInference getRowTypeInference() {
        // The join's output has the probe's time attributes only: the build side's come out as
        // plain timestamps, as in Flink 2.4's SNAPSHOT, and a view over the join says so.
        return binding ->
                TimeIndicatorConversion.materialize(
                        binding.getTypeFactory(), binding.getOperandType(INPUT_POSITION));
    }

    @Override
    public boolean argumentMustBeScalar(int ordinal) {
        return ordinal != INPUT_POSITION;
    }

    /**
     * Checks the argument syntax before Calcite matches named arguments to parameters: Calcite
     * drops an unknown name silently, and reports an {@code input} that is not a table as an
     * unknown column.
     */
    @Override
    public SqlNode rewriteCall(SqlValidator validator, SqlCall call) {
        checkArgumentSyntax(call, validator.getCatalogReader().nameMatcher());
        return call;
    }

    // ---- argument syntax ----

    private static void checkArgumentSyntax(SqlCall call, SqlNameMatcher nameMatcher) {
        List<SqlNode> operands = call.getOperandList();
        SqlNode[] arguments = new SqlNode[PARAMETERS.size()];
        boolean named = operands.stream().anyMatch(SnapshotTableFunction::isNamedArgument);
        for (int i = 0; i < operands.size(); i++) {
            SqlNode operand = operands.get(i);
            if (!named) {
                if (i < arguments.length) {
                    arguments[i] = operand;
                }
                continue;
            }
            if (!isNamedArgument(operand)) {
                throw new ValidationException(
                        String.format(
                                "The arguments of %s must either all be named or all be"
                                        + " positional, but argument %d is positional.",
                                NAME, i + 1));
            }
            SqlCall assignment = (SqlCall) operand;
            String name = ((SqlIdentifier) assignment.operand(1)).getSimple();
            int position = parameterPosition(name, nameMatcher);
            if (position < 0) {
                throw new ValidationException(
                        String.format(
                                "Unknown argument '%s' of %s. Supported arguments are: %s.",
                                name, NAME, String.join(", ", PARAMETERS)));
            }
            if (arguments[position] != null) {
                throw new ValidationException(
                        String.format(
                                "Argument '%s' of %s is given more than once.",
                                PARAMETERS.get(position), NAME));
            }
            arguments[position] = assignment.operand(0);
        }

        SqlNode input = arguments[INPUT_POSITION];
        if (input == null || isDefault(input)) {
            throw new ValidationException(
                    String.format(
                            "%s requires the '%s' argument, the build-side table, for example"
                                    + " '%s => TABLE rates'.",
                            NAME, INPUT, INPUT));
        }
        if (!input.isA(SqlKind.QUERY) && input.getKind() != SqlKind.SET_SEMANTICS_TABLE) {
            throw new ValidationException(
                    String.format(
                            "Argument '%s' of %s must be a table. It was '%s'; write for"
                                    + " example '%s => TABLE rates'.",
                            INPUT, NAME, input, INPUT));
        }
        if (input.getKind() == SqlKind.SET_SEMANTICS_TABLE
                && (isNonEmptyList(((SqlCall) input).operand(1))
                        || isNonEmptyList(((SqlCall) input).operand(2)))) {
            throw new ValidationException(
                    String.format(
                            "Argument '%s' of %s takes no PARTITION BY or ORDER BY: the join"
                                    + " partitions the build side by the equality keys of its ON"
                                    + " clause and orders its changes by '%s'.",
                            INPUT, NAME, ON_TIME));
        }
        SqlNode onTime = arguments[ON_TIME_POSITION];
        if (onTime != null && !isDefault(onTime) && onTimeColumn(onTime) == null) {
            throw new ValidationException(
                    String.format(
                            "Argument '%s' of %s must reference exactly one column. It was '%s';"
                                    + " write a DESCRIPTOR of one column, for example '%s =>"
                                    + " DESCRIPTOR(update_time)'.",
                            ON_TIME, NAME, onTime, ON_TIME));
        }
    }

    private static boolean isNonEmptyList(SqlNode node) {
        return node instanceof SqlNodeList && !((SqlNodeList) node).isEmpty();
    }

    private static boolean isNamedArgument(SqlNode operand) {
        return operand.getKind() == SqlKind.ARGUMENT_ASSIGNMENT;
    }

    private static boolean isDefault(SqlNode operand) {
        return operand.getKind() == SqlKind.DEFAULT;
    }

    private static int parameterPosition(String name, SqlNameMatcher nameMatcher) {
        for (int i = 0; i < PARAMETERS.size(); i++) {
            if (nameMatcher.matches(name, PARAMETERS.get(i))) {
                return i;
            }
        }
        return -1;
    }

    /** The column named by {@code DESCRIPTOR(column)}, or null for any other expression. */
    @Nullable
    private static String onTimeColumn(SqlNode onTime) {
        if (onTime.getKind() != SqlKind.DESCRIPTOR) {
            return null;
        }
        List<SqlNode> columns = ((SqlCall) onTime).getOperandList();
        if (columns.size() != 1
                || !(columns.get(0) instanceof SqlIdentifier)
                || !((SqlIdentifier) columns.get(0)).isSimple()) {
            return null;
        }
        return ((SqlIdentifier) columns.get(0)).getSimple();
    }

    // ---- messages, shared with the Table API's SnapshotProcessTableFunction ----
    // Where Flink 2.4's SNAPSHOT raises the same error, the message starts with its text, so that
    // a user who moves between the two sees the same error; help may follow.

    static ValidationException unknownOnTimeColumn(String column, List<String> inputColumns) {
        return new ValidationException(
                String.format(
                        "Argument '%s' of %s references column '%s' which is not present in the"
                                + " input table. Available columns: %s.",
                        ON_TIME, NAME, column, String.join(", ", inputColumns)));
    }

    /** Rejects an {@code on_time} column that cannot hold the rowtime the operator orders by. */
    static void checkOnTimeType(String column, LogicalType type) {
        boolean timestamp =
                type.is(LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE)
                        || type.is(LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE);
        if (!timestamp || LogicalTypeChecks.getPrecision(type) > MAX_ON_TIME_PRECISION) {
            throw new ValidationException(
                    String.format(
                            "Argument '%s' of %s must reference a TIMESTAMP or TIMESTAMP_LTZ column"
                                    + " (up to precision %d), but column '%s' has type '%s'.",
                            ON_TIME, NAME, MAX_ON_TIME_PRECISION, column, type.asSummaryString()));
        }
    }

    // ---- argument types ----

    /** Parameter names, optional parameters and the type checks of the arguments. */
    private static final class OperandMetadata implements SqlOperandMetadata {

        @Override
        public List<RelDataType> paramTypes(RelDataTypeFactory typeFactory) {
            // The real checks are in checkOperandTypes; the validator only needs a type for the
            // DEFAULT marker of an omitted argument.
            return Collections.nCopies(
                    PARAMETERS.size(), typeFactory.createSqlType(SqlTypeName.ANY));
        }

        @Override
        public List<String> paramNames() {
            return PARAMETERS;
        }

        @Override
        public boolean checkOperandTypes(SqlCallBinding binding, boolean throwOnFailure) {
            // Reached without rewriteCall when the function was resolved late (for example next
            // to an overload from a catalog), so the syntax is checked again here.
            checkArgumentSyntax(
                    binding.getCall(), binding.getValidator().getCatalogReader().nameMatcher());
            RelDataType inputType = binding.getOperandType(INPUT_POSITION);
            checkOnTime(binding, inputType);
            checkType(
                    binding,
                    LOAD_COMPLETED_TIME_POSITION,
                    type -> type.getSqlTypeName() == SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE,
                    "a constant TIMESTAMP_LTZ(3) expression, for example CAST(TIMESTAMP"
                            + " '2026-01-02 00:00:00' AS TIMESTAMP_LTZ(3))");
            for (int position :
                    new int[] {LOAD_COMPLETED_IDLE_TIMEOUT_POSITION, STATE_TTL_POSITION}) {
                checkType(
                        binding,
                        position,
                        type ->
                                type.getSqlTypeName().getFamily()
                                        == SqlTypeFamily.INTERVAL_DAY_TIME,
                        "a constant day-time INTERVAL, for example INTERVAL '10' SECOND");
            }
            return true;
        }

        private static void checkOnTime(SqlCallBinding binding, RelDataType inputType) {
            SqlNode onTime = binding.operand(ON_TIME_POSITION);
            if (isDefault(onTime)) {
                return;
            }
            String column = onTimeColumn(onTime);
            SqlNameMatcher nameMatcher = binding.getValidator().getCatalogReader().nameMatcher();
            RelDataTypeField field = nameMatcher.field(inputType, column);
            if (field == null) {
                throw unknownOnTimeColumn(column, inputType.getFieldNames());
            }
            checkOnTimeType(field.getName(), FlinkTypeFactory.toLogicalType(field.getType()));
        }

        private static void checkType(
                SqlCallBinding binding,
                int position,
                Predicate<RelDataType> accepted,
                String expected) {
            if (isDefault(binding.operand(position))) {
                return;
            }
            RelDataType type = binding.getOperandType(position);
            if (!accepted.test(type)) {
                throw new ValidationException(
                        String.format(
                                "Argument '%s' of %s must be %s, but has type '%s'.",
                                PARAMETERS.get(position), NAME, expected, describe(type)));
            }
        }

        private static String describe(RelDataType type) {
            return FlinkTypeFactory.toLogicalType(type).asSummaryString();
        }

        @Override
        public SqlOperandCountRange getOperandCountRange() {
            return SqlOperandCountRanges.between(1, PARAMETERS.size());
        }

        @Override
        public boolean isOptional(int i) {
            return i != INPUT_POSITION;
        }

        @Override
        public boolean isFixedParameters() {
            // Calcite then passes an omitted argument as DEFAULT, so every argument keeps its
            // position whatever the order of the named arguments.
            return true;
        }

        @Override
        public String getAllowedSignatures(SqlOperator op, String opName) {
            List<String> parameters = new ArrayList<>();
            parameters.add(INPUT + " => TABLE t");
            parameters.add(ON_TIME + " => DESCRIPTOR(column)");
            parameters.addAll(
                    PARAMETERS.subList(LOAD_COMPLETED_TIME_POSITION, PARAMETERS.size()).stream()
                            .map(name -> "[" + name + " => ...]")
                            .collect(Collectors.toList()));
            return opName + "(" + String.join(", ", parameters) + ")";
        }
    }
}
