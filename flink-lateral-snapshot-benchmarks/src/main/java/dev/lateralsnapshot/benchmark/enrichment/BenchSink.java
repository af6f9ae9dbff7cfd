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

package dev.lateralsnapshot.benchmark.enrichment;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import org.HdrHistogram.Histogram;

/**
 * A discarding sink that counts rows and records, for every insert (+I or +U), the time from the
 * probe source's stamp ({@code src_nanos}) to its arrival here, in microseconds.
 */
final class BenchSink implements Sink<RowData> {

    private static final long serialVersionUID = 1L;

    private final String runId;
    private final int stampIndex;

    BenchSink(String runId, int stampIndex) {
        this.runId = runId;
        this.stampIndex = stampIndex;
    }

    @Override
    public SinkWriter<RowData> createWriter(WriterInitContext context) {
        BenchRun run = BenchRun.get(runId);
        return new Writer(run.sinkStats[context.getTaskInfo().getIndexOfThisSubtask()], stampIndex);
    }

    private static final class Writer implements SinkWriter<RowData> {
        private final SinkStats stats;
        private final int stampIndex;
        private final long origin;
        private final long[] lastArrival;
        private Histogram current;
        private long currentEnd = Long.MIN_VALUE;

        Writer(SinkStats stats, int stampIndex) {
            this.stats = stats;
            this.stampIndex = stampIndex;
            this.origin = stats.originNanos();
            this.lastArrival = stats.lastArrivalBySourceTime;
        }

        @Override
        public void write(RowData row, Context context) {
            RowKind kind = row.getRowKind();
            if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER) {
                long now = System.nanoTime();
                if (now >= currentEnd) {
                    int second = (int) ((now - origin) / 1_000_000_000L);
                    current = stats.histogramOf(second);
                    currentEnd = origin + (second + 1) * 1_000_000_000L;
                }
                long stamp = row.getLong(stampIndex);
                current.recordValue(Math.max(0, (now - stamp) / 1000));
                if (lastArrival != null) {
                    int bucket = (int) ((stamp - origin) / SinkStats.DRAIN_BUCKET_NANOS);
                    if (bucket >= 0 && bucket < lastArrival.length && lastArrival[bucket] < now) {
                        lastArrival[bucket] = now;
                    }
                }
            } else {
                stats.retractions++;
            }
            if ((++stats.rows & 255) == 0) {
                stats.published = stats.rows;
            }
        }

        @Override
        public void flush(boolean endOfInput) {
            stats.published = stats.rows;
        }

        @Override
        public void close() {
            stats.published = stats.rows;
        }
    }
}
