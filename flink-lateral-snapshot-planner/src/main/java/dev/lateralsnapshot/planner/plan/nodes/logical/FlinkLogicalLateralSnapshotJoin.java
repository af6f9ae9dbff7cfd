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

package dev.lateralsnapshot.planner.plan.nodes.logical;

import dev.lateralsnapshot.planner.functions.SnapshotArguments;
import dev.lateralsnapshot.planner.internal.TimeIndicatorConversion;

import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.plan.nodes.FlinkConventions;
import org.apache.flink.table.planner.plan.nodes.logical.FlinkLogicalCalc;
import org.apache.flink.table.planner.plan.nodes.logical.FlinkLogicalRel;

import org.apache.calcite.plan.Convention;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttle;
import org.apache.calcite.rel.convert.ConverterRule;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.util.ImmutableBitSet;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The LATERAL SNAPSHOT join in Flink's logical convention, between Flink's logical and physical
 * phases.
 *
 * <p>Flink's time-attribute conversion visits every logical node and rejects classes it does not
 * know; this node answers it itself (see {@link #accept(RelShuttle)}): its inputs are converted as
 * usual; in its output the probe attributes stay time attributes (the output watermark is the probe
 * watermark), the build attributes become plain timestamps, as for Flink's temporal joins.
 */
public final class FlinkLogicalLateralSnapshotJoin extends LateralSnapshotJoinBase
        implements FlinkLogicalRel {

    /** Converts {@link LogicalLateralSnapshotJoin} in Flink's logical phase. */
    public static final ConverterRule CONVERTER =
            ConverterRule.Config.INSTANCE
                    .withConversion(
                            LogicalLateralSnapshotJoin.class,
                            Convention.NONE,
                            FlinkConventions.LOGICAL(),
                            "FlinkLogicalLateralSnapshotJoinConverter")
                    .withRuleFactory(Converter::new)
                    .toRule(ConverterRule.class);

    public FlinkLogicalLateralSnapshotJoin(
            RelOptCluster cluster,
            RelTraitSet traitSet,
            RelNode probe,
            RelNode build,
            RexNode condition,
            JoinRelType joinType,
            SnapshotArguments arguments) {
        super(cluster, traitSet, probe, build, condition, joinType, arguments);
    }

    @Override
    public FlinkLogicalLateralSnapshotJoin copy(
            RelTraitSet traitSet,
            RelNode probe,
            RelNode build,
            RexNode condition,
            SnapshotArguments arguments) {
        return new FlinkLogicalLateralSnapshotJoin(
                getCluster(), traitSet, probe, build, condition, joinType, arguments);
    }

    @Override
    public RelNode accept(RelShuttle shuttle) {
        if (TimeIndicatorConversion.isConversion(shuttle)) {
            return convertTimeIndicators(shuttle);
        }
        return super.accept(shuttle);
    }

    private RelNode convertTimeIndicators(RelShuttle converter) {
        // The join condition is generated code without access to the clock, so processing time
        // attributes it reads are materialized below the join, as for Flink's regular joins.
        ImmutableBitSet conditionFields = RelOptUtil.InputFinder.bits(condition);
        int probeFieldCount = getLeft().getRowType().getFieldCount();
        int fieldCount = probeFieldCount + getRight().getRowType().getFieldCount();
        RelNode probe =
                materializeProctime(
                        getLeft().accept(converter), conditionFields.get(0, probeFieldCount));
        RelNode build =
                materializeProctime(
                        getRight().accept(converter),
                        conditionFields.get(probeFieldCount, fieldCount).shift(-probeFieldCount));
        List<RelDataTypeField> inputFields = new ArrayList<>(probe.getRowType().getFieldList());
        inputFields.addAll(build.getRowType().getFieldList());
        // Time attributes materialized in the inputs change their type.
        RexNode convertedCondition =
                condition.accept(
                        new RexShuttle() {
                            @Override
                            public RexNode visitInputRef(RexInputRef inputRef) {
                                return RexInputRef.of(inputRef.getIndex(), inputFields);
                            }
                        });
        FlinkLogicalLateralSnapshotJoin converted =
                copy(getTraitSet(), probe, build, convertedCondition, arguments);
        return materialize(
                converted,
                field ->
                        field.getIndex() >= probeFieldCount
                                && FlinkTypeFactory.isTimeIndicatorType(field.getType()));
    }

    /** Materializes the processing time attributes among the given fields of the input. */
    private static RelNode materializeProctime(RelNode input, ImmutableBitSet fields) {
        return materialize(
                input,
                field ->
                        fields.get(field.getIndex())
                                && FlinkTypeFactory.isProctimeIndicatorType(field.getType()));
    }

    /** The input with the time attributes among the selected fields materialized. */
    private static RelNode materialize(RelNode input, Predicate<RelDataTypeField> selected) {
        RexBuilder rexBuilder = input.getCluster().getRexBuilder();
        RelDataType rowType = input.getRowType();
        List<RexNode> projects = new ArrayList<>();
        boolean materialized = false;
        for (RelDataTypeField field : rowType.getFieldList()) {
            RexNode ref = new RexInputRef(field.getIndex(), field.getType());
            if (selected.test(field)) {
                materialized = true;
                ref = TimeIndicatorConversion.materialize(rexBuilder, ref);
            }
            projects.add(ref);
        }
        if (!materialized) {
            return input;
        }
        return FlinkLogicalCalc.create(
                input,
                RexProgram.create(rowType, projects, null, rowType.getFieldNames(), rexBuilder));
    }

    private static final class Converter extends ConverterRule {

        private Converter(Config config) {
            super(config);
        }

        @Override
        public RelNode convert(RelNode rel) {
            LogicalLateralSnapshotJoin join = (LogicalLateralSnapshotJoin) rel;
            RelTraitSet traitSet =
                    join.getTraitSet().replace(FlinkConventions.LOGICAL()).simplify();
            return new FlinkLogicalLateralSnapshotJoin(
                    join.getCluster(),
                    traitSet,
                    RelOptRule.convert(join.getLeft(), FlinkConventions.LOGICAL()),
                    RelOptRule.convert(join.getRight(), FlinkConventions.LOGICAL()),
                    join.getCondition(),
                    join.getJoinType(),
                    join.getArguments());
        }
    }
}
