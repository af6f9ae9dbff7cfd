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

package dev.lateralsnapshot.planner.plan.nodes.exec.stream;

import dev.lateralsnapshot.planner.internal.CalcFunctions;

import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.runtime.generated.GeneratedFunction;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.apache.calcite.rex.RexNode;

import javax.annotation.Nullable;

import java.util.List;
import java.util.stream.Stream;

import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * A Calc fused into the join: its projection and filter over the joined row, which the operator
 * runs on every row it emits. Never part of a compiled plan (see {@code
 * LateralSnapshotJoinCalcFusion}).
 */
final class FusedCalc {

    private final List<RexNode> projection;
    @Nullable private final RexNode condition;

    /**
     * @param projection the calc's projection, over the join's output row
     * @param condition the calc's filter, over the join's output row; null for none
     */
    FusedCalc(List<RexNode> projection, @Nullable RexNode condition) {
        this.projection = List.copyOf(checkNotNull(projection));
        this.condition = condition;
    }

    /**
     * The function of the calc, whose input is the joined row: the probe row's columns, then the
     * build row's, which a LEFT join pads with nulls.
     */
    GeneratedFunction<FlatMapFunction<RowData, RowData>> generate(
            ExecNodeConfig config,
            ClassLoader classLoader,
            RowType probeType,
            RowType buildType,
            boolean leftOuterJoin,
            RowType outputType) {
        RowType joinedType =
                RowType.of(
                        Stream.concat(
                                        probeType.getChildren().stream(),
                                        buildType.getChildren().stream()
                                                .map(
                                                        type ->
                                                                leftOuterJoin
                                                                        ? type.copy(true)
                                                                        : type))
                                .toArray(LogicalType[]::new));
        return CalcFunctions.generate(
                "LateralSnapshotJoinCalc",
                joinedType,
                outputType,
                projection,
                condition,
                config,
                classLoader);
    }

    /**
     * The description of a join with the calc fused: the calc's {@code select} and {@code where}
     * inside {@code calc=[...]}, after the join's own, as EXPLAIN shows them on a Calc.
     */
    static String describe(String joinDescription, String calcDescription) {
        String calcPrefix = "Calc(";
        String calc =
                calcDescription.startsWith(calcPrefix) && calcDescription.endsWith(")")
                        ? calcDescription.substring(
                                calcPrefix.length(), calcDescription.length() - 1)
                        : calcDescription;
        return joinDescription.endsWith(")")
                ? joinDescription.substring(0, joinDescription.length() - 1)
                        + ", calc=["
                        + calc
                        + "])"
                : joinDescription + ", calc=[" + calc + "]";
    }
}
