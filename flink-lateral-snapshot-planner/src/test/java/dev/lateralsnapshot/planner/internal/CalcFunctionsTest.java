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

import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.calcite.FlinkTypeSystem;
import org.apache.flink.table.runtime.generated.GeneratedFunction;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.RowType;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Guards for {@link CalcFunctions}: Flink's code generator of a Calc's function compiles a
 * projection and a filter into a function that emits the projected row of each row that passes.
 */
class CalcFunctionsTest {

    private static final ClassLoader CLASS_LOADER = CalcFunctionsTest.class.getClassLoader();
    private static final FlinkTypeFactory TYPES =
            new FlinkTypeFactory(CLASS_LOADER, FlinkTypeSystem.INSTANCE);
    private static final RexBuilder REX = new RexBuilder(TYPES);

    @Test
    void theFunctionProjectsTheRowsThatPassTheFilter() throws Exception {
        RelDataType nullableDouble =
                TYPES.createTypeWithNullability(TYPES.createSqlType(SqlTypeName.DOUBLE), true);
        RexNode id = REX.makeInputRef(TYPES.createSqlType(SqlTypeName.BIGINT), 0);
        RexNode rate = REX.makeInputRef(nullableDouble, 1);
        RexNode amount = REX.makeCall(SqlStdOperatorTable.MULTIPLY, id, rate);
        RexNode aboveOne =
                REX.makeCall(
                        SqlStdOperatorTable.GREATER_THAN,
                        rate,
                        REX.makeApproxLiteral(BigDecimal.ONE));

        GeneratedFunction<FlatMapFunction<RowData, RowData>> generated =
                CalcFunctions.generate(
                        "GuardCalc",
                        RowType.of(new BigIntType(false), new DoubleType()),
                        RowType.of(new BigIntType(false), new DoubleType()),
                        List.of(id, amount),
                        aboveOne,
                        new Configuration(),
                        CLASS_LOADER);
        FlatMapFunction<RowData, RowData> function = generated.newInstance(CLASS_LOADER);
        List<String> rows = new ArrayList<>();
        for (GenericRowData input :
                List.of(
                        GenericRowData.of(2L, 1.5),
                        GenericRowData.of(3L, 0.5),
                        GenericRowData.of(4L, null))) {
            List<RowData> emitted = new ArrayList<>();
            function.flatMap(input, new ListCollector<>(emitted));
            // The function reuses its output row: read each one before the next input.
            emitted.forEach(row -> rows.add(row.getLong(0) + ", " + row.getDouble(1)));
        }

        assertThat(rows).containsExactly("2, 3.0");
    }
}
