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

import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.calcite.RelTimeIndicatorConverter;
import org.apache.flink.table.planner.functions.sql.FlinkSqlOperatorTable;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;

import org.apache.calcite.rel.RelShuttle;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Flink's conversion of time attributes ({@link RelTimeIndicatorConverter}), which visits every
 * logical node as a {@link RelShuttle} and rejects node classes it does not know. A node of this
 * library recognizes the conversion by its class and converts itself, materializing time attributes
 * the way the conversion does for Flink's own nodes: a processing time attribute through {@code
 * PROCTIME_MATERIALIZE}, a rowtime attribute by a cast to a plain timestamp.
 */
public final class TimeIndicatorConversion {

    private TimeIndicatorConversion() {}

    /** Whether the shuttle is Flink's conversion of time attributes. */
    public static boolean isConversion(RelShuttle shuttle) {
        return shuttle instanceof RelTimeIndicatorConverter;
    }

    /** The expression of a time attribute as a plain timestamp. */
    public static RexNode materialize(RexBuilder rexBuilder, RexNode timeAttribute) {
        RelDataType type = timeAttribute.getType();
        if (FlinkTypeFactory.isProctimeIndicatorType(type)) {
            return rexBuilder.makeCall(FlinkSqlOperatorTable.PROCTIME_MATERIALIZE, timeAttribute);
        }
        FlinkTypeFactory typeFactory = (FlinkTypeFactory) rexBuilder.getTypeFactory();
        return rexBuilder.makeAbstractCast(
                typeFactory.createFieldTypeFromLogicalType(plainTimestamp(type)),
                timeAttribute,
                false);
    }

    /**
     * The row type with its time attributes as the plain timestamps that the conversion turns them
     * into; the row type itself when it has none.
     */
    public static RelDataType materialize(RelDataTypeFactory typeFactory, RelDataType rowType) {
        if (rowType.getFieldList().stream()
                .noneMatch(field -> FlinkTypeFactory.isTimeIndicatorType(field.getType()))) {
            return rowType;
        }
        RelDataTypeFactory.Builder builder = typeFactory.builder();
        for (RelDataTypeField field : rowType.getFieldList()) {
            RelDataType type = field.getType();
            if (FlinkTypeFactory.isTimeIndicatorType(type)) {
                type =
                        ((FlinkTypeFactory) typeFactory)
                                .createFieldTypeFromLogicalType(plainTimestamp(type));
            }
            builder.add(field.getName(), type);
        }
        return typeFactory.createTypeWithNullability(builder.build(), rowType.isNullable());
    }

    private static LogicalType plainTimestamp(RelDataType timeIndicator) {
        return timeIndicator.getSqlTypeName() == SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE
                ? new LocalZonedTimestampType(timeIndicator.isNullable(), 3)
                : new TimestampType(timeIndicator.isNullable(), 3);
    }
}
