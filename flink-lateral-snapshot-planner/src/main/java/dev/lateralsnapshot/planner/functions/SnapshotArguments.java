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

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.util.TimeUtils;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexExecutor;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;

import javax.annotation.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

import static dev.lateralsnapshot.planner.functions.SnapshotTableFunction.LOAD_COMPLETED_IDLE_TIMEOUT_POSITION;
import static dev.lateralsnapshot.planner.functions.SnapshotTableFunction.LOAD_COMPLETED_TIME_POSITION;
import static dev.lateralsnapshot.planner.functions.SnapshotTableFunction.NAME;
import static dev.lateralsnapshot.planner.functions.SnapshotTableFunction.ON_TIME_POSITION;
import static dev.lateralsnapshot.planner.functions.SnapshotTableFunction.PARAMETERS;
import static dev.lateralsnapshot.planner.functions.SnapshotTableFunction.STATE_TTL_POSITION;

/**
 * The arguments of one {@code SNAPSHOT} call, folded to the values the join operator takes.
 *
 * <p>They are folded once, when the join is planned, so that EXPLAIN shows what the job will do and
 * the defaults are fixed at compile time: {@code load_completed_time} defaults to the wall-clock
 * time of planning, {@code state_ttl} to {@code table.exec.state.ttl}. A compiled plan keeps the
 * values, and says whether {@code load_completed_time} was given or defaulted.
 *
 * <p>{@code on_time} is kept as the position of the column in the build input, so the planner rules
 * that change the build input must move it along ({@link #withOnTimeIndex(int)}).
 */
public final class SnapshotArguments {

    /** Position of the {@code on_time} column in the build input; null when not given. */
    @Nullable private final Integer onTimeIndex;

    /** Epoch millis. */
    private final long loadCompletedTime;

    /** Whether the query gave {@code load_completed_time}, rather than the time of planning. */
    private final boolean loadCompletedTimeGiven;

    /** Millis, 0 for none. */
    private final long loadCompletedIdleTimeout;

    /** Millis, 0 to keep build keys forever. */
    private final long stateTtl;

    private SnapshotArguments(
            @Nullable Integer onTimeIndex,
            long loadCompletedTime,
            boolean loadCompletedTimeGiven,
            long loadCompletedIdleTimeout,
            long stateTtl) {
        this.onTimeIndex = onTimeIndex;
        this.loadCompletedTime = loadCompletedTime;
        this.loadCompletedTimeGiven = loadCompletedTimeGiven;
        this.loadCompletedIdleTimeout = loadCompletedIdleTimeout;
        this.stateTtl = stateTtl;
    }

    /**
     * Folds the arguments of a validated {@code SNAPSHOT} call.
     *
     * @param call the invocation of the table function scan
     * @param buildInput the input of the scan, which the {@code on_time} column belongs to
     * @param config the configuration that gives the defaults
     */
    public static SnapshotArguments fold(RexCall call, RelNode buildInput, ReadableConfig config) {
        List<RexNode> operands = SnapshotCalls.operandsInParameterOrder(call);
        RelOptCluster cluster = buildInput.getCluster();
        Integer onTimeIndex =
                onTimeColumn(call).map(column -> onTimeIndex(column, buildInput)).orElse(null);
        OptionalLong loadCompletedTime =
                foldConstant(cluster, operands, LOAD_COMPLETED_TIME_POSITION, false);
        return new SnapshotArguments(
                onTimeIndex,
                loadCompletedTime.orElseGet(System::currentTimeMillis),
                loadCompletedTime.isPresent(),
                foldConstant(cluster, operands, LOAD_COMPLETED_IDLE_TIMEOUT_POSITION, true)
                        .orElse(0L),
                foldConstant(cluster, operands, STATE_TTL_POSITION, true)
                        .orElseGet(
                                () ->
                                        config.get(ExecutionConfigOptions.IDLE_STATE_RETENTION)
                                                .toMillis()));
    }

    /** The column named by the {@code on_time} argument of a {@code SNAPSHOT} call, if given. */
    public static Optional<String> onTimeColumn(RexCall call) {
        RexNode onTime = SnapshotCalls.operandsInParameterOrder(call).get(ON_TIME_POSITION);
        if (onTime.getKind() != SqlKind.DESCRIPTOR) {
            return Optional.empty();
        }
        // The validation of either form has checked that the descriptor names one column.
        return Optional.of(RexLiteral.stringValue(((RexCall) onTime).getOperands().get(0)));
    }

    private static int onTimeIndex(String column, RelNode buildInput) {
        // The validator has checked that the column exists.
        RelDataTypeField field = buildInput.getRowType().getField(column, false, false);
        return Objects.requireNonNull(field, column).getIndex();
    }

    private static OptionalLong foldConstant(
            RelOptCluster cluster, List<RexNode> operands, int position, boolean nonNegative) {
        RexNode operand = operands.get(position);
        if (operand.getKind() == SqlKind.DEFAULT) {
            return OptionalLong.empty();
        }
        String name = PARAMETERS.get(position);
        RexLiteral literal = reduceToLiteral(cluster, operand);
        if (literal == null) {
            // The operand as the planner prints it would show its internal form ($0 for a
            // column), so the message says what a constant is instead.
            throw new ValidationException(
                    String.format(
                            "Argument '%s' of %s must be a constant expression that can be"
                                    + " evaluated at plan time. It may not refer to a column or"
                                    + " call a non-deterministic function.",
                            name, NAME));
        }
        Long value = literal.getValueAs(Long.class);
        if (value == null) {
            throw new ValidationException(
                    String.format("Argument '%s' of %s must not be NULL.", name, NAME));
        }
        if (nonNegative && value < 0) {
            throw negativeDuration(name, value);
        }
        return OptionalLong.of(value);
    }

    /** The error for a negative interval argument, in SQL and in the Table API builder. */
    public static ValidationException negativeDuration(String argument, long millis) {
        return new ValidationException(
                String.format(
                        "Argument '%s' of %s must not be negative. It was %d ms.",
                        argument, NAME, millis));
    }

    /** The literal the operand folds to; null if it is not a constant. */
    @Nullable
    private static RexLiteral reduceToLiteral(RelOptCluster cluster, RexNode operand) {
        if (operand instanceof RexLiteral) {
            return (RexLiteral) operand;
        }
        // An argument that names a column of the outer query arrives as an input reference of
        // the scan, a correlated one as a field access: neither is a constant.
        if (!RexUtil.isConstant(operand) || !RexUtil.isDeterministic(operand)) {
            return null;
        }
        RexExecutor executor = cluster.getPlanner().getExecutor();
        if (executor == null) {
            return null;
        }
        List<RexNode> reduced = new ArrayList<>();
        executor.reduce(cluster.getRexBuilder(), List.of(operand), reduced);
        RexNode result = reduced.get(0);
        // The reducer wraps a literal in a CAST that only changes its nullability.
        if (result.getKind() == SqlKind.CAST) {
            RexNode castOperand = ((RexCall) result).getOperands().get(0);
            if (castOperand instanceof RexLiteral
                    && castOperand.getType().getSqlTypeName()
                            == result.getType().getSqlTypeName()) {
                result = castOperand;
            }
        }
        return result instanceof RexLiteral ? (RexLiteral) result : null;
    }

    /** The same arguments, with the {@code on_time} column at another position. */
    public SnapshotArguments withOnTimeIndex(int index) {
        return new SnapshotArguments(
                index,
                loadCompletedTime,
                loadCompletedTimeGiven,
                loadCompletedIdleTimeout,
                stateTtl);
    }

    public boolean hasOnTime() {
        return onTimeIndex != null;
    }

    /** Position of the {@code on_time} column in the build input. */
    public int getOnTimeIndex() {
        return Objects.requireNonNull(onTimeIndex, "The on_time argument was not given.");
    }

    public long getLoadCompletedTime() {
        return loadCompletedTime;
    }

    /** Whether {@link #getLoadCompletedTime()} was given, or is the time of planning. */
    public boolean isLoadCompletedTimeGiven() {
        return loadCompletedTimeGiven;
    }

    public long getLoadCompletedIdleTimeout() {
        return loadCompletedIdleTimeout;
    }

    public long getStateTtl() {
        return stateTtl;
    }

    /** Adds the arguments to an EXPLAIN output, under their SQL names. */
    public RelWriter explainTerms(RelWriter writer, List<String> buildFieldNames) {
        return writer.itemIf(
                        SnapshotTableFunction.ON_TIME,
                        onTimeIndex == null ? "" : buildFieldNames.get(onTimeIndex),
                        onTimeIndex != null)
                .item(
                        SnapshotTableFunction.LOAD_COMPLETED_TIME,
                        Instant.ofEpochMilli(loadCompletedTime).toString())
                .itemIf(
                        SnapshotTableFunction.LOAD_COMPLETED_IDLE_TIMEOUT,
                        formatDuration(loadCompletedIdleTimeout),
                        loadCompletedIdleTimeout > 0)
                .itemIf(SnapshotTableFunction.STATE_TTL, formatDuration(stateTtl), stateTtl > 0);
    }

    private static String formatDuration(long millis) {
        return TimeUtils.formatWithHighestUnit(Duration.ofMillis(millis));
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof SnapshotArguments)) {
            return false;
        }
        SnapshotArguments that = (SnapshotArguments) o;
        return Objects.equals(onTimeIndex, that.onTimeIndex)
                && loadCompletedTime == that.loadCompletedTime
                && loadCompletedTimeGiven == that.loadCompletedTimeGiven
                && loadCompletedIdleTimeout == that.loadCompletedIdleTimeout
                && stateTtl == that.stateTtl;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                onTimeIndex,
                loadCompletedTime,
                loadCompletedTimeGiven,
                loadCompletedIdleTimeout,
                stateTtl);
    }
}
