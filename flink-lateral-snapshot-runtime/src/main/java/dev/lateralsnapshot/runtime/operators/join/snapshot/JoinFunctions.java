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

package dev.lateralsnapshot.runtime.operators.join.snapshot;

import org.apache.flink.api.common.functions.DefaultOpenContext;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.util.FunctionUtils;
import org.apache.flink.streaming.api.operators.StreamingRuntimeContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.generated.JoinCondition;
import org.apache.flink.util.Collector;

import javax.annotation.Nullable;

/**
 * The generated code of a join: the non-equi condition and the calc fused after the join, each
 * optional. Opens them with the operator and closes them with it.
 */
final class JoinFunctions implements AutoCloseable {

    @Nullable private final JoinCondition condition;
    @Nullable private final FlatMapFunction<RowData, RowData> calc;

    private JoinFunctions(
            @Nullable JoinCondition condition, @Nullable FlatMapFunction<RowData, RowData> calc) {
        this.condition = condition;
        this.calc = calc;
    }

    static JoinFunctions open(
            LateralSnapshotJoinParameters parameters, StreamingRuntimeContext context)
            throws Exception {
        ClassLoader classLoader = context.getUserCodeClassLoader();
        JoinCondition condition = null;
        if (parameters.condition() != null) {
            condition = parameters.condition().newInstance(classLoader);
            condition.setRuntimeContext(context);
            condition.open(DefaultOpenContext.INSTANCE);
        }
        JoinFunctions functions = new JoinFunctions(condition, null);
        if (parameters.fusedCalc() == null) {
            return functions;
        }
        FlatMapFunction<RowData, RowData> calc = parameters.fusedCalc().newInstance(classLoader);
        FunctionUtils.setFunctionRuntimeContext(calc, context);
        try {
            FunctionUtils.openFunction(calc, DefaultOpenContext.INSTANCE);
        } catch (Exception e) {
            // The operator's close would not see a condition that is not yet handed to it.
            functions.close();
            throw e;
        }
        return new JoinFunctions(condition, calc);
    }

    @Nullable
    JoinCondition condition() {
        return condition;
    }

    /** The collector of joined rows: through the fused calc when there is one. */
    Collector<RowData> joinedRows(Collector<RowData> output) {
        return calc == null ? output : new CalcCollector(calc, output);
    }

    @Override
    public void close() throws Exception {
        if (condition != null) {
            condition.close();
        }
        if (calc != null) {
            FunctionUtils.closeFunction(calc);
        }
    }
}
