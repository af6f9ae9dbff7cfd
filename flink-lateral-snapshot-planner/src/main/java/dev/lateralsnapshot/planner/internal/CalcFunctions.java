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
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.planner.codegen.CalcCodeGenerator$;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;
import org.apache.flink.table.runtime.generated.GeneratedFunction;
import org.apache.flink.table.types.logical.RowType;

import org.apache.calcite.rex.RexNode;

import javax.annotation.Nullable;

import java.util.List;
import java.util.Optional;

/**
 * The code of a {@code Calc} as a function: Flink's {@code CalcCodeGenerator#generateFunction}, a
 * method of a Scala object ({@code private[flink]}, public in the bytecode, reached through the
 * object's {@code MODULE$} as the class has no static forwarder) that takes Scala collections. It
 * generates the same projection and filter code as the operator of Flink's {@code StreamExecCalc},
 * in a {@code FlatMapFunction} that emits the projected row of each input row that passes the
 * filter, as a binary row that one function instance reuses.
 */
public final class CalcFunctions {

    private CalcFunctions() {}

    /**
     * The function of a calc on rows of {@code inputType} that emits rows of {@code outputType}.
     */
    public static GeneratedFunction<FlatMapFunction<RowData, RowData>> generate(
            String name,
            RowType inputType,
            RowType outputType,
            List<RexNode> projection,
            @Nullable RexNode condition,
            ReadableConfig config,
            ClassLoader classLoader) {
        return CalcCodeGenerator$.MODULE$.generateFunction(
                inputType,
                name,
                outputType,
                BinaryRowData.class,
                JavaScalaConversionUtil.toScala(projection),
                JavaScalaConversionUtil.toScala(Optional.ofNullable(condition)),
                config,
                classLoader);
    }
}
