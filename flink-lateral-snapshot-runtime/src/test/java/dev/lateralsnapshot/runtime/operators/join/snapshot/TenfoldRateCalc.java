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

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;

/**
 * A calc on the joined rows of the standard join, as the planner would fuse it for {@code SELECT
 * o.id, r.rate * 10 AS amount ... WHERE r.rate IS NULL OR r.rate > 1}, written by hand: it emits
 * {@code (id, amount)} and drops the rows with a rate of 1 or less. It remembers whether the
 * operator opened and closed it, with its runtime context.
 */
final class TenfoldRateCalc extends RichFlatMapFunction<RowData, RowData> {

    private static final long serialVersionUID = 1L;

    static final RowType OUTPUT_TYPE =
            RowType.of(
                    new LogicalType[] {LateralSnapshotJoinTestBase.STRING, new IntType()},
                    new String[] {"id", "amount"});

    /** Position of the rate in the joined row: the probe row's two columns, then the build row. */
    private static final int RATE = 3;

    boolean opened;
    boolean openedWithContext;
    boolean closed;

    @Override
    public void open(OpenContext openContext) {
        opened = true;
        openedWithContext = getRuntimeContext() != null;
    }

    @Override
    public void flatMap(RowData joined, Collector<RowData> out) {
        Integer rate = joined.isNullAt(RATE) ? null : joined.getInt(RATE);
        if (rate == null || rate > 1) {
            out.collect(GenericRowData.of(joined.getString(0), rate == null ? null : rate * 10));
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
