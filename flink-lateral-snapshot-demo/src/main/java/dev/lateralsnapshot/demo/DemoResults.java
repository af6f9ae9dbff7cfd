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

package dev.lateralsnapshot.demo;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.types.Row;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A sink that hands the enriched orders to the demo, which prints them. The embedded cluster runs
 * in the demo's JVM, so the rows travel through a static queue. Unlike {@code TableResult#collect},
 * it needs no cluster to fetch the last rows from once the job has ended.
 */
final class DemoResults implements Sink<Row> {

    private static final long serialVersionUID = 1L;

    private static final BlockingQueue<Row> ROWS = new LinkedBlockingQueue<>();

    /** The rows received and not taken yet. */
    static BlockingQueue<Row> rows() {
        return ROWS;
    }

    @Override
    public SinkWriter<Row> createWriter(WriterInitContext context) {
        return new SinkWriter<>() {
            @Override
            public void write(Row row, Context context) {
                ROWS.add(row);
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
