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

package dev.lateralsnapshot.testutils.connectors;

import org.apache.flink.table.connector.RuntimeConverter;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;

import java.io.Serializable;
import java.util.function.Function;

/**
 * How a source turns the rows a test hands it into its records, or a sink its records into rows. It
 * travels to the tasks with the source or sink, and opens there with the job's class loader: the
 * table's converters need it, and the function it opens need not be serializable.
 */
@FunctionalInterface
interface RowConversion<I, O> extends Serializable {

    Function<I, O> open(ClassLoader classLoader);

    /** For the DataStream API: the rows are the records. */
    static RowConversion<Row, Row> rows() {
        return classLoader -> row -> row;
    }

    /** For a table source: rows into Flink's internal data structures. */
    static RowConversion<Row, RowData> toInternal(
            DynamicTableSource.DataStructureConverter converter) {
        return classLoader -> {
            converter.open(RuntimeConverter.Context.create(classLoader));
            return row -> (RowData) converter.toInternal(row);
        };
    }

    /** For a table sink: Flink's internal data structures into rows. */
    static RowConversion<RowData, Row> toExternal(
            DynamicTableSink.DataStructureConverter converter) {
        return classLoader -> {
            converter.open(RuntimeConverter.Context.create(classLoader));
            return row -> (Row) converter.toExternal(row);
        };
    }
}
