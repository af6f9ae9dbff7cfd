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
import dev.lateralsnapshot.planner.functions.SnapshotTableFunction;
import dev.lateralsnapshot.planner.plan.nodes.logical.LogicalLateralSnapshotJoin;

import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;
import org.immutables.value.Value;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Captures a LATERAL SNAPSHOT join in streaming mode: {@code Join(probe,
 * TableFunctionScan[SNAPSHOT]( build))} becomes a {@link LogicalLateralSnapshotJoin}, for the
 * {@code SNAPSHOT} of SQL and of the Table API alike. The {@link #FILTER_JOIN} variants also take
 * the WHERE clause of {@code CROSS JOIN LATERAL SNAPSHOT(...) WHERE ...}, of the comma form and of
 * the Table API's {@code join(snapshot).where(...)} as the join condition, once the filter
 * push-down that runs before this rule (see {@link #leadsToSnapshotJoin}) has brought it down from
 * above other joins, sub-query joins and projections.
 *
 * <p>It runs before Flink's default rewrite, predicate push-down and projection push-down: those
 * would otherwise push projections between the join and the scan (pruning the {@code on_time}
 * column) and treat the pattern as a regular join. In exchange, this rule does for the new node
 * what they do for a join: it pushes conjuncts that reference one side only into that side (probe
 * conjuncts only for INNER joins), coerces both sides of an equality to one type and pushes
 * computed equality operands into the inputs, so that as many conjuncts as possible become equality
 * keys the join is partitioned on.
 *
 * <p>It also checks what only streaming needs: an {@code on_time} argument that names a rowtime
 * attribute of the build input.
 */
@Value.Enclosing
public class LateralSnapshotJoinCaptureRule extends RelRule<LateralSnapshotJoinCaptureRule.Config> {

    /** {@code Join(probe, SNAPSHOT(build))} with the join condition. */
    public static final LateralSnapshotJoinCaptureRule JOIN = Config.JOIN.toRule();

    /** {@code Join(probe, Project(SNAPSHOT(build)))}, see {@link Config#JOIN_PROJECT}. */
    public static final LateralSnapshotJoinCaptureRule JOIN_PROJECT = Config.JOIN_PROJECT.toRule();

    /** {@code Filter(Join[true](probe, SNAPSHOT(build)))}: the filter is the join condition. */
    public static final LateralSnapshotJoinCaptureRule FILTER_JOIN = Config.FILTER_JOIN.toRule();

    /** {@code Filter(Join[true](probe, Project(SNAPSHOT(build))))}, the same with a projection. */
    public static final LateralSnapshotJoinCaptureRule FILTER_JOIN_PROJECT =
            Config.FILTER_JOIN_PROJECT.toRule();

    private LateralSnapshotJoinCaptureRule(Config config) {
        super(config);
    }

    @Override
    public void onMatch(RelOptRuleCall call) {
        call.transformTo(capture(call.builder(), SnapshotJoinMatch.of(call, config)));
    }

    /**
     * Whether Flink's filter push-down may move WHERE conjuncts into the node on their way down to
     * a SNAPSHOT join that a filter variant of this rule captures: the node is a join, projection
     * or filter on a path of such nodes down to a join over a {@code SNAPSHOT} scan, and not that
     * join itself. The WHERE clause of the comma and {@code CROSS JOIN} forms sits above every join
     * of the FROM clause and above the joins of rewritten sub-queries, and a WHERE clause outside a
     * sub-select above its projection; Flink's push-down would move it down only after the capture,
     * too late for the join condition. It must not touch the SNAPSHOT join itself: a filter on its
     * build side would hide the scan from this rule, and only this rule knows that the conjuncts go
     * into the ON clause only for a join without condition, never for a LEFT join ({@link
     * LateralSnapshotJoinFilterTransposeRule} moves the probe conjuncts below it).
     */
    public static boolean leadsToSnapshotJoin(RelNode node) {
        return !SnapshotJoinMatch.isSnapshotJoin(node) && reachesSnapshotJoin(node);
    }

    private static boolean reachesSnapshotJoin(RelNode node) {
        if (SnapshotJoinMatch.isSnapshotJoin(node)) {
            return true;
        }
        return (node instanceof Join || node instanceof Project || node instanceof Filter)
                && node.getInputs().stream()
                        .map(RelNode::stripped)
                        .anyMatch(LateralSnapshotJoinCaptureRule::reachesSnapshotJoin);
    }

    private static RelNode capture(RelBuilder relBuilder, SnapshotJoinMatch match) {
        RelNode probe = match.join().getLeft();
        JoinRelType joinType = match.join().getJoinType();
        RelNode build = match.build();
        SnapshotArguments arguments = match.arguments();
        checkOnTime(arguments, build);
        LogicalProject buildProject = match.buildProject();
        boolean onTimeAppended = false;
        if (buildProject != null) {
            // The scan returns its input unchanged, so the projection applies to the input. It
            // comes from computed equality operands and keeps every column so far; should it ever
            // drop the on_time column, the column is appended and removed again above the join.
            List<RexNode> projects = new ArrayList<>();
            for (RexNode project : buildProject.getProjects()) {
                projects.add(
                        SnapshotJoinMatch.typedLike(project, build.getRowType().getFieldList()));
            }
            List<String> names = new ArrayList<>(buildProject.getRowType().getFieldNames());
            RexInputRef onTime = RexInputRef.of(arguments.getOnTimeIndex(), build.getRowType());
            int onTimeIndex = projects.indexOf(onTime);
            if (onTimeIndex < 0) {
                onTimeIndex = projects.size();
                onTimeAppended = true;
                projects.add(onTime);
                names.add(null);
            }
            build = relBuilder.push(build).project(projects, names, true).build();
            arguments = arguments.withOnTimeIndex(onTimeIndex);
        }

        // Conjuncts of one side go below the join; for a LEFT join only build conjuncts may, as
        // every probe row has to come out.
        int probeFieldCount = probe.getRowType().getFieldCount();
        List<RelDataTypeField> inputFields = new ArrayList<>(probe.getRowType().getFieldList());
        inputFields.addAll(build.getRowType().getFieldList());
        RexNode condition = SnapshotJoinMatch.typedLike(match.condition(), inputFields);
        List<RexNode> probeConjuncts = new ArrayList<>();
        List<RexNode> buildConjuncts = new ArrayList<>();
        List<RexNode> joinConjuncts = new ArrayList<>();
        for (RexNode conjunct : RelOptUtil.conjunctions(condition)) {
            ImmutableBitSet fields = RelOptUtil.InputFinder.bits(conjunct);
            boolean pushable = !fields.isEmpty() && RexUtil.isDeterministic(conjunct);
            if (pushable && fields.length() <= probeFieldCount && joinType == JoinRelType.INNER) {
                probeConjuncts.add(conjunct);
            } else if (pushable && fields.nextSetBit(0) >= probeFieldCount) {
                buildConjuncts.add(RexUtil.shift(conjunct, -probeFieldCount));
            } else {
                joinConjuncts.add(conjunct);
            }
        }
        RelNode filteredProbe = relBuilder.push(probe).filter(probeConjuncts).build();
        // A filter keeps every column, so the on_time position stays valid.
        RelNode filteredBuild = relBuilder.push(build).filter(buildConjuncts).build();

        RexBuilder rexBuilder = relBuilder.getRexBuilder();
        RexNode joinCondition =
                RexUtil.composeConjunction(
                        rexBuilder, coerceEqualities(relBuilder, joinConjuncts, probeFieldCount));
        // Calcite pushes computed equality operands into projections appended to the inputs; the
        // build columns keep their positions, and a projection on top restores the row type.
        RelNode pushed =
                RelOptUtil.pushDownJoinConditions(
                        LogicalJoin.create(
                                filteredProbe,
                                filteredBuild,
                                List.of(),
                                joinCondition,
                                Set.of(),
                                joinType),
                        relBuilder);
        Project restore = pushed instanceof Project ? (Project) pushed : null;
        Join pushedJoin = (Join) (restore == null ? pushed : restore.getInput());
        RelNode snapshotJoin =
                LogicalLateralSnapshotJoin.create(
                        pushedJoin.getLeft(),
                        pushedJoin.getRight(),
                        pushedJoin.getCondition(),
                        joinType,
                        arguments);
        RelNode result =
                restore == null
                        ? snapshotJoin
                        : restore.copy(restore.getTraitSet(), List.of(snapshotJoin));
        if (onTimeAppended) {
            int fieldCount = result.getRowType().getFieldCount() - 1;
            result =
                    relBuilder
                            .push(result)
                            .project(relBuilder.fields(ImmutableBitSet.range(fieldCount).asList()))
                            .build();
        }
        // The join reads the build side's time attributes, which its output has as plain
        // timestamps, as the SNAPSHOT scan declared them.
        return RelOptUtil.createCastRel(result, match.join().getRowType(), true);
    }

    private static void checkOnTime(SnapshotArguments arguments, RelNode build) {
        if (!arguments.hasOnTime()) {
            throw new ValidationException(
                    "LATERAL SNAPSHOT requires the 'on_time' argument to identify the build-side"
                            + " rowtime attribute.");
        }
        RelDataTypeField onTime = build.getRowType().getFieldList().get(arguments.getOnTimeIndex());
        if (!FlinkTypeFactory.isRowtimeIndicatorType(onTime.getType())) {
            throw new ValidationException(
                    String.format(
                            "Argument '%s' of %s must reference a rowtime attribute (a column with"
                                    + " a watermark), but column '%s' is not one.",
                            SnapshotTableFunction.ON_TIME,
                            SnapshotTableFunction.NAME,
                            onTime.getName()));
        }
    }

    /**
     * Casts both sides of an equality between a probe and a build column of different types to
     * their common type: the operator hashes and compares keys in their binary form, which only
     * agrees for equal types.
     */
    private static List<RexNode> coerceEqualities(
            RelBuilder relBuilder, List<RexNode> conjuncts, int probeFieldCount) {
        RexBuilder rexBuilder = relBuilder.getRexBuilder();
        List<RexNode> coerced = new ArrayList<>();
        for (RexNode conjunct : conjuncts) {
            if (conjunct.getKind() != SqlKind.EQUALS) {
                coerced.add(conjunct);
                continue;
            }
            List<RexNode> operands = ((RexCall) conjunct).getOperands();
            RexNode first = operands.get(0);
            RexNode second = operands.get(1);
            if (!(first instanceof RexInputRef)
                    || !(second instanceof RexInputRef)
                    || (((RexInputRef) first).getIndex() < probeFieldCount)
                            == (((RexInputRef) second).getIndex() < probeFieldCount)
                    || SqlTypeUtil.equalSansNullability(
                            relBuilder.getTypeFactory(), first.getType(), second.getType())) {
                coerced.add(conjunct);
                continue;
            }
            RelDataType common =
                    relBuilder
                            .getTypeFactory()
                            .leastRestrictive(List.of(first.getType(), second.getType()));
            if (common == null) {
                throw new ValidationException(
                        String.format(
                                "LATERAL SNAPSHOT join cannot compare %s with %s in '%s'.",
                                first.getType(), second.getType(), conjunct));
            }
            coerced.add(
                    relBuilder.equals(
                            rexBuilder.ensureType(common, first, true),
                            rexBuilder.ensureType(common, second, true)));
        }
        return coerced;
    }

    /** Rule configuration. */
    @Value.Immutable(singleton = false)
    public interface Config extends SnapshotJoinMatch.Shape {

        Config JOIN = capture(false, false, "LateralSnapshotJoinCaptureRule(Join)");

        /** See {@link SnapshotJoinMatch} for where the projection comes from. */
        Config JOIN_PROJECT = capture(false, true, "LateralSnapshotJoinCaptureRule(Join, Project)");

        Config FILTER_JOIN = capture(true, false, "LateralSnapshotJoinCaptureRule(Filter, Join)");

        /**
         * {@code Filter(Join[true](probe, Project(SNAPSHOT(build))))}: the Table API's {@code
         * orders.join(snapshot).where(...)}, where the snapshot table of {@code
         * LateralSnapshot.snapshot(...)} projects away the {@code rowtime} column Flink appends.
         */
        Config FILTER_JOIN_PROJECT =
                capture(true, true, "LateralSnapshotJoinCaptureRule(Filter, Join, Project)");

        @Override
        default LateralSnapshotJoinCaptureRule toRule() {
            return new LateralSnapshotJoinCaptureRule(this);
        }

        private static Config capture(boolean filter, boolean buildProject, String description) {
            return ImmutableLateralSnapshotJoinCaptureRule.Config.builder()
                    .matchesFilter(filter)
                    .matchesBuildProject(buildProject)
                    .operandSupplier(b -> SnapshotJoinMatch.operands(b, filter, buildProject))
                    .description(description)
                    .build();
        }
    }
}
