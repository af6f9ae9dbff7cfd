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

import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * Passes every joined row through the calc fused into the join, which emits the projected rows that
 * pass its filter to the operator's output.
 */
final class CalcCollector implements Collector<RowData> {

    private final FlatMapFunction<RowData, RowData> calc;
    private final Collector<RowData> output;

    CalcCollector(FlatMapFunction<RowData, RowData> calc, Collector<RowData> output) {
        this.calc = calc;
        this.output = output;
    }

    @Override
    public void collect(RowData joinedRow) {
        try {
            calc.flatMap(joinedRow, output);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            // Collector#collect declares no checked exception, FlatMapFunction#flatMap does.
            throw new FlinkRuntimeException(e);
        }
    }

    @Override
    public void close() {
        output.close();
    }
}
