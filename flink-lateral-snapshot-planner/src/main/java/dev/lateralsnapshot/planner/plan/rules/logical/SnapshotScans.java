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
import dev.lateralsnapshot.planner.functions.SnapshotCalls;

import org.apache.flink.table.planner.calcite.FlinkTypeFactory;

import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelVisitor;
import org.apache.calcite.rel.core.TableFunctionScan;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexCall;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Scans of {@code SNAPSHOT} in a plan: {@code TableFunctionScan}s whose call is a {@code SNAPSHOT}
 * call of SQL or of the Table API, as SQL-to-rel conversion and the Table API create them.
 */
public final class SnapshotScans {

    private SnapshotScans() {}

    /** Whether the node is a scan of {@code SNAPSHOT}, from SQL or from the Table API. */
    public static boolean isSnapshotScan(RelNode node) {
        return node instanceof TableFunctionScan
                && SnapshotCalls.isSnapshotCall(((TableFunctionScan) node).getCall());
    }

    /**
     * The build input of a {@code SNAPSHOT} scan, typed like the scan but with the time attributes
     * of the input, which the join reads ({@code on_time}) and the scan declares as plain
     * timestamps. The function returns the rows of its input unchanged, so a cast is otherwise only
     * needed where the validator derived a type that differs in nullability or field names. In the
     * Table API, Flink appends a {@code rowtime} column to the rows of a process table function
     * with {@code on_time}; it is a copy of the {@code on_time} column, which Flink declares NOT
     * NULL.
     */
    public static RelNode buildInput(TableFunctionScan snapshotScan) {
        RelNode input = snapshotScan.getInputs().get(0);
        int inputFieldCount = input.getRowType().getFieldCount();
        if (snapshotScan.getRowType().getFieldCount() > inputFieldCount) {
            // Only a call with on_time has the extra column; the validation checked the column.
            String onTime =
                    SnapshotArguments.onTimeColumn((RexCall) snapshotScan.getCall()).orElseThrow();
            List<Integer> columns = new ArrayList<>();
            for (int i = 0; i < inputFieldCount; i++) {
                columns.add(i);
            }
            columns.add(input.getRowType().getField(onTime, false, false).getIndex());
            input = RelOptUtil.createProject(input, columns);
        }
        RelDataType type = withTimeAttributesOf(input.getRowType(), snapshotScan);
        if (RelOptUtil.areRowTypesEqual(input.getRowType(), type, true)) {
            return input;
        }
        return RelOptUtil.createCastRel(input, type, true);
    }

    private static RelDataType withTimeAttributesOf(
            RelDataType inputType, TableFunctionScan snapshotScan) {
        RelDataTypeFactory.Builder builder = snapshotScan.getCluster().getTypeFactory().builder();
        List<RelDataTypeField> inputFields = inputType.getFieldList();
        for (RelDataTypeField field : snapshotScan.getRowType().getFieldList()) {
            RelDataType inputField = inputFields.get(field.getIndex()).getType();
            boolean materialized =
                    FlinkTypeFactory.isTimeIndicatorType(inputField)
                            && !FlinkTypeFactory.isTimeIndicatorType(field.getType());
            builder.add(field.getName(), materialized ? inputField : field.getType());
        }
        return builder.build();
    }

    /** Whether the plan has a {@code SNAPSHOT} scan anywhere. */
    public static boolean containsSnapshotScan(RelNode root) {
        return firstSnapshotScan(root).isPresent();
    }

    /**
     * Fails for any {@code SNAPSHOT} scan the rules left in the plan: the function only has a
     * meaning as the build side of a LATERAL join.
     */
    public static void rejectRemainingSnapshotScans(RelNode root) {
        Optional<TableFunctionScan> scan = firstSnapshotScan(root);
        if (scan.isPresent()) {
            throw SnapshotCalls.misplaced(SnapshotCalls.isSqlCall(scan.get().getCall()));
        }
    }

    /** The first {@code SNAPSHOT} scan of the plan in depth-first order, from the root down. */
    private static Optional<TableFunctionScan> firstSnapshotScan(RelNode root) {
        List<TableFunctionScan> found = new ArrayList<>(1);
        new RelVisitor() {
            @Override
            public void visit(RelNode node, int ordinal, RelNode parent) {
                if (!found.isEmpty()) {
                    return;
                }
                if (isSnapshotScan(node)) {
                    found.add((TableFunctionScan) node);
                    return;
                }
                super.visit(node, ordinal, parent);
            }
        }.go(root);
        return found.stream().findFirst();
    }
}
