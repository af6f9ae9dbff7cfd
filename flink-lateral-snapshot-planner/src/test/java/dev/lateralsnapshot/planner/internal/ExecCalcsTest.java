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

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.calcite.FlinkTypeSystem;
import org.apache.flink.table.planner.plan.nodes.exec.InputProperty;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecCalc;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;

import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Guards for {@link ExecCalcs}: Flink's Calc exec node keeps its expressions in two fields. */
class ExecCalcsTest {

    private static final FlinkTypeFactory TYPES =
            new FlinkTypeFactory(ExecCalcsTest.class.getClassLoader(), FlinkTypeSystem.INSTANCE);
    private static final RexBuilder REX = new RexBuilder(TYPES);

    @Test
    void theFieldsHoldAListOfExpressionsAndAnExpression() throws NoSuchFieldException {
        Field projection = ExecCalcs.field(ExecCalcs.PROJECTION_FIELD);
        Field condition = ExecCalcs.field(ExecCalcs.CONDITION_FIELD);
        assertThat(projection.getType())
                .as("the projection of Flink's CommonExecCalc changed its type")
                .isEqualTo(List.class);
        assertThat(condition.getType())
                .as("the condition of Flink's CommonExecCalc changed its type")
                .isEqualTo(RexNode.class);
    }

    @Test
    void readsTheExpressionsTheCalcWasMadeWith() {
        RexNode id = REX.makeInputRef(TYPES.createSqlType(SqlTypeName.BIGINT), 0);
        RexNode positive =
                REX.makeCall(
                        SqlStdOperatorTable.GREATER_THAN,
                        id,
                        REX.makeBigintLiteral(BigDecimal.ZERO));
        RowType outputType = RowType.of(new BigIntType());

        StreamExecCalc filtered =
                new StreamExecCalc(
                        new Configuration(),
                        List.of(id),
                        positive,
                        InputProperty.DEFAULT,
                        outputType,
                        "Calc(select=[id], where=[(id > 0)])");
        StreamExecCalc projected =
                new StreamExecCalc(
                        new Configuration(),
                        List.of(id),
                        null,
                        InputProperty.DEFAULT,
                        outputType,
                        "Calc(select=[id])");

        assertThat(ExecCalcs.projection(filtered)).containsExactly(id);
        assertThat(ExecCalcs.condition(filtered)).isEqualTo(positive);
        assertThat(ExecCalcs.condition(projected)).isNull();
    }
}
