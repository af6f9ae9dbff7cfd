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

package dev.lateralsnapshot.planner.plan.rules.logical;

import dev.lateralsnapshot.planner.functions.SnapshotArguments;

import org.apache.flink.table.api.ValidationException;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.logical.LogicalTableFunctionScan;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;

import javax.annotation.Nullable;

import java.util.List;
import java.util.function.Predicate;

import static org.apache.flink.table.planner.utils.ShortcutUtils.unwrapTableConfig;

/**
 * A join over a {@code SNAPSHOT} scan, as the streaming capture ({@link
 * LateralSnapshotJoinCaptureRule}) and the batch rewrite ({@link
 * BatchLateralSnapshotJoinToRegularJoinRule}) match it, with what both need first: the checked join
 * type, the build input and the folded arguments.
 *
 * <p>The shapes: {@code Join(probe, SNAPSHOT(build))}, optionally with a projection over the scan
 * ({@code Join(probe, Project(SNAPSHOT(build)))}: SQL-to-rel conversion and Flink's sub-query
 * rewrite push computed equality operands of the build side into a projection over the scan), and
 * optionally as a filter over a join without condition, whose filter is the join condition (the
 * WHERE clause of {@code CROSS JOIN LATERAL SNAPSHOT(...)}, of the comma form and of the Table
 * API's {@code join(snapshot).where(...)}).
 */
final class SnapshotJoinMatch {

    /** The shape a rule matches; the configurations of the rules extend it. */
    interface Shape extends RelRule.Config {

        /** Whether the rule matches a filter over a join without condition. */
        boolean matchesFilter();

        /** Whether the rule matches a projection between the join and the scan. */
        boolean matchesBuildProject();
    }

    private final LogicalJoin join;
    private final RexNode condition;
    @Nullable private final LogicalProject buildProject;
    private final RelNode build;
    private final SnapshotArguments arguments;

    private SnapshotJoinMatch(
            LogicalJoin join,
            RexNode condition,
            @Nullable LogicalProject buildProject,
            RelNode build,
            SnapshotArguments arguments) {
        this.join = join;
        this.condition = condition;
        this.buildProject = buildProject;
        this.build = build;
        this.arguments = arguments;
    }

    /** The operands of the shape. */
    static RelRule.Done operands(
            RelRule.OperandBuilder builder, boolean filter, boolean buildProject) {
        if (filter) {
            return builder.operand(LogicalFilter.class)
                    .oneInput(
                            join ->
                                    joinOperands(
                                            join, SnapshotJoinMatch::isCrossJoin, buildProject));
        }
        return joinOperands(builder, SnapshotJoinMatch::isLateralJoin, buildProject);
    }

    private static RelRule.Done joinOperands(
            RelRule.OperandBuilder builder,
            Predicate<LogicalJoin> joinPredicate,
            boolean buildProject) {
        RelRule.OperandTransform snapshot =
                scan ->
                        scan.operand(LogicalTableFunctionScan.class)
                                .predicate(SnapshotScans::isSnapshotScan)
                                .anyInputs();
        return builder.operand(LogicalJoin.class)
                .predicate(joinPredicate)
                .inputs(
                        probe -> probe.operand(RelNode.class).anyInputs(),
                        buildProject
                                ? project ->
                                        project.operand(LogicalProject.class).oneInput(snapshot)
                                : snapshot);
    }

    /**
     * Semi and anti joins come from sub-queries such as {@code IN (SELECT ... FROM
     * TABLE(SNAPSHOT(...)))}, never from a LATERAL join; their scans are left to the check for
     * misplaced {@code SNAPSHOT} calls.
     */
    private static boolean isLateralJoin(LogicalJoin join) {
        return join.getJoinType().projectsRight();
    }

    private static boolean isCrossJoin(LogicalJoin join) {
        return join.getJoinType() == JoinRelType.INNER && join.getCondition().isAlwaysTrue();
    }

    /** A join over a SNAPSHOT scan of any of the shapes; the HEP planner wraps inputs. */
    static boolean isSnapshotJoin(RelNode node) {
        if (!(node instanceof Join)) {
            return false;
        }
        RelNode build = ((Join) node).getRight().stripped();
        if (build instanceof Project) {
            build = build.getInput(0).stripped();
        }
        return SnapshotScans.isSnapshotScan(build);
    }

    /** Reads a match of the rule's shape, checks the join type and folds the arguments. */
    static SnapshotJoinMatch of(RelOptRuleCall call, Shape shape) {
        int joinPosition = shape.matchesFilter() ? 1 : 0;
        LogicalJoin join = call.rel(joinPosition);
        LogicalProject buildProject =
                shape.matchesBuildProject() ? call.rel(joinPosition + 2) : null;
        LogicalTableFunctionScan scan = call.rel(call.rels.length - 1);
        RexNode condition =
                shape.matchesFilter()
                        ? ((LogicalFilter) call.rel(0)).getCondition()
                        : join.getCondition();
        checkJoinType(join.getJoinType());
        RelNode build = SnapshotScans.buildInput(scan);
        SnapshotArguments arguments =
                SnapshotArguments.fold((RexCall) scan.getCall(), build, unwrapTableConfig(scan));
        return new SnapshotJoinMatch(join, condition, buildProject, build, arguments);
    }

    /** Rejects the join types the join cannot run: it never emits unmatched build rows. */
    private static void checkJoinType(JoinRelType joinType) {
        if (joinType != JoinRelType.INNER && joinType != JoinRelType.LEFT) {
            throw new ValidationException(
                    String.format(
                            "LATERAL SNAPSHOT join only supports INNER JOIN and LEFT OUTER JOIN,"
                                    + " but was %s JOIN.",
                            joinType.name()));
        }
    }

    /**
     * The expression over fields typed like the scan, over the same fields typed like the scan's
     * input: where the scan has a plain timestamp, the input has the time attribute.
     */
    static RexNode typedLike(RexNode expression, List<RelDataTypeField> fields) {
        return expression.accept(
                new RexShuttle() {
                    @Override
                    public RexNode visitInputRef(RexInputRef inputRef) {
                        return RexInputRef.of(inputRef.getIndex(), fields);
                    }
                });
    }

    /** The matched join. */
    LogicalJoin join() {
        return join;
    }

    /** The join condition: that of the join, or the filter over a join without condition. */
    RexNode condition() {
        return condition;
    }

    /** The projection between the join and the scan, if the shape has one. */
    @Nullable
    LogicalProject buildProject() {
        return buildProject;
    }

    /** The input of the scan, typed like the scan; without the projection. */
    RelNode build() {
        return build;
    }

    /**
     * The folded arguments of the {@code SNAPSHOT} call; {@code on_time} indexes {@link #build}.
     */
    SnapshotArguments arguments() {
        return arguments;
    }
}
