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

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.table.connector.sink.DynamicTableSink.DataStructureConverter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;

import java.util.function.Function;

/**
 * A sink that hands every record it receives, as a row with its change kind, to a {@link
 * CollectedRows}. The {@code 'test-collect'} tables write to it; a DataStream program writes to it
 * through {@link #of}.
 */
public final class CollectingSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;

    private final String collectionId;
    private final RowConversion<T, Row> conversion;

    private CollectingSink(String collectionId, RowConversion<T, Row> conversion) {
        this.collectionId = collectionId;
        this.conversion = conversion;
    }

    /** A sink of rows into the collection, for the DataStream API. */
    public static CollectingSink<Row> of(CollectedRows rows) {
        return new CollectingSink<>(rows.id(), RowConversion.rows());
    }

    /** The sink of a {@code 'test-collect'} table. */
    static CollectingSink<RowData> ofTable(String collectionId, DataStructureConverter converter) {
        return new CollectingSink<>(collectionId, RowConversion.toExternal(converter));
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        CollectedRows rows = CollectedRows.get(collectionId);
        Function<T, Row> toRow = conversion.open(context.getUserCodeClassLoader().asClassLoader());
        return new SinkWriter<>() {
            @Override
            public void write(T record, Context context) {
                rows.add(toRow.apply(record));
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
