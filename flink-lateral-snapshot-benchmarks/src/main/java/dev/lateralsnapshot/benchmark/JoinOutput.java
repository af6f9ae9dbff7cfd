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

package dev.lateralsnapshot.benchmark;

import org.apache.flink.runtime.event.WatermarkEvent;
import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.util.OutputTag;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Where joined rows go, the same class for the operator (installed in the harness with {@code
 * setOutputCreator}) and for the bare loop, so that both pay exactly the same per output row.
 *
 * <p>Public because JMH's generated code reads the {@link Mode} parameter.
 */
public abstract class JoinOutput implements Output<StreamRecord<RowData>> {

    /** What the output does with each joined row. */
    public enum Mode {
        /**
         * What the harness's own MockOutput does: copy the row with the output type's serializer
         * into a new StreamRecord and append it to a ConcurrentLinkedQueue, which the benchmark
         * clears after every batch. It is also what Flink's CopyingChainingOutput does with every
         * row handed to a chained operator when object reuse is off, the default.
         */
        COPY,
        /**
         * Read the two key fields of the (reused) joined row and fold them into a checksum: a
         * chained operator with object reuse on. The cheapest honest downstream, so the ratio shows
         * the operator's own overhead undiluted.
         */
        READ
    }

    static JoinOutput create(Mode mode) {
        return mode == Mode.COPY ? new Copying() : new Reading();
    }

    /** Ends a batch: forgets what the batch produced and returns the number of its rows. */
    abstract long drain();

    @Override
    public void emitWatermark(Watermark mark) {}

    @Override
    public void emitWatermark(WatermarkEvent watermark) {}

    @Override
    public void emitWatermarkStatus(WatermarkStatus watermarkStatus) {}

    @Override
    public <X> void collect(OutputTag<X> outputTag, StreamRecord<X> record) {
        throw new UnsupportedOperationException("The join has no side output.");
    }

    @Override
    public void emitLatencyMarker(LatencyMarker latencyMarker) {}

    @Override
    public void emitRecordAttributes(RecordAttributes recordAttributes) {}

    @Override
    public void close() {}

    private static final class Copying extends JoinOutput {
        private final RowDataSerializer serializer = new RowDataSerializer(JoinFixture.OUTPUT_TYPE);
        private final ConcurrentLinkedQueue<Object> queue = new ConcurrentLinkedQueue<>();

        @Override
        public void collect(StreamRecord<RowData> record) {
            RowData copy = serializer.copy(record.getValue());
            queue.add(
                    record.hasTimestamp()
                            ? new StreamRecord<>(copy, record.getTimestamp())
                            : new StreamRecord<>(copy));
        }

        @Override
        long drain() {
            long drained = 0;
            while (queue.poll() != null) {
                drained++;
            }
            return drained;
        }
    }

    private static final class Reading extends JoinOutput {
        private long rows;
        // A field of an object that escapes: the JIT must keep the reads that feed it.
        private long checksum;

        @Override
        public void collect(StreamRecord<RowData> record) {
            RowData row = record.getValue();
            checksum += row.getLong(0) ^ row.getLong(2);
            rows++;
        }

        @Override
        long drain() {
            long drained = rows;
            rows = 0;
            return drained;
        }
    }
}
