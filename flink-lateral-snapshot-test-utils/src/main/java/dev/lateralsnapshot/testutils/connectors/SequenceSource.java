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

import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * An unbounded source of one BIGINT column whose numbers a {@link SequenceGate} releases. Each
 * split remembers the next number it emits; readers checkpoint their splits and the enumerator the
 * splits it has not assigned, so a restarted or rescaled job emits every number exactly once
 * downstream of its last checkpoint.
 */
final class SequenceSource
        implements Source<
                RowData, SequenceSource.SequenceSplit, List<SequenceSource.SequenceSplit>> {

    private static final long serialVersionUID = 1L;

    private final String gateId;

    SequenceSource(String gateId) {
        this.gateId = gateId;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<RowData, SequenceSplit> createReader(SourceReaderContext context) {
        return new Reader(SequenceGate.get(gateId));
    }

    @Override
    public SplitEnumerator<SequenceSplit, List<SequenceSplit>> createEnumerator(
            SplitEnumeratorContext<SequenceSplit> context) {
        int splits = SequenceGate.get(gateId).splits();
        List<SequenceSplit> all = new ArrayList<>();
        for (int index = 0; index < splits; index++) {
            all.add(new SequenceSplit(index, splits, index + 1));
        }
        return new Enumerator(context, all);
    }

    @Override
    public SplitEnumerator<SequenceSplit, List<SequenceSplit>> restoreEnumerator(
            SplitEnumeratorContext<SequenceSplit> context, List<SequenceSplit> unassigned) {
        return new Enumerator(context, unassigned);
    }

    @Override
    public SimpleVersionedSerializer<SequenceSplit> getSplitSerializer() {
        return new SplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<List<SequenceSplit>> getEnumeratorCheckpointSerializer() {
        return new SplitListSerializer();
    }

    /** The numbers {@code index + 1 + k * count} from {@code next} on. */
    static final class SequenceSplit implements SourceSplit {
        final int index;
        final int count;
        final long next;

        SequenceSplit(int index, int count, long next) {
            this.index = index;
            this.count = count;
            this.next = next;
        }

        @Override
        public String splitId() {
            return String.valueOf(index);
        }
    }

    private static final class Reader implements SourceReader<RowData, SequenceSplit> {
        private final SequenceGate gate;
        private final List<SplitProgress> splits = new ArrayList<>();
        private int cursor;

        Reader(SequenceGate gate) {
            this.gate = gate;
        }

        @Override
        public void start() {}

        @Override
        public InputStatus pollNext(ReaderOutput<RowData> output) {
            long limit = gate.released();
            int size = splits.size();
            // Round-robin over the splits, so that the numbers come out roughly in order.
            for (int i = 0; i < size; i++) {
                int position = (cursor + i) % size;
                SplitProgress split = splits.get(position);
                if (split.next <= limit) {
                    output.collect(GenericRowData.of(split.next));
                    split.next += split.count;
                    gate.reportNext(split.index, split.next);
                    cursor = position + 1;
                    return InputStatus.MORE_AVAILABLE;
                }
            }
            return InputStatus.NOTHING_AVAILABLE;
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            // Taken before the check: a release in between completes this very future.
            CompletableFuture<Void> release = gate.nextRelease();
            long limit = gate.released();
            for (SplitProgress split : splits) {
                if (split.next <= limit) {
                    return CompletableFuture.completedFuture(null);
                }
            }
            return release;
        }

        @Override
        public List<SequenceSplit> snapshotState(long checkpointId) {
            List<SequenceSplit> state = new ArrayList<>();
            for (SplitProgress split : splits) {
                state.add(new SequenceSplit(split.index, split.count, split.next));
            }
            return state;
        }

        @Override
        public void addSplits(List<SequenceSplit> newSplits) {
            for (SequenceSplit split : newSplits) {
                splits.add(new SplitProgress(split));
                gate.reportNext(split.index, split.next);
            }
        }

        @Override
        public void notifyNoMoreSplits() {}

        @Override
        public void close() {}
    }

    /** A split being read: the split is immutable, for the checkpoints. */
    private static final class SplitProgress {
        final int index;
        final int count;
        long next;

        SplitProgress(SequenceSplit split) {
            this.index = split.index;
            this.count = split.count;
            this.next = split.next;
        }
    }

    /** Hands split {@code i} to subtask {@code i % parallelism} when that subtask registers. */
    private static final class Enumerator
            implements SplitEnumerator<SequenceSplit, List<SequenceSplit>> {
        private final SplitEnumeratorContext<SequenceSplit> context;
        private final List<SequenceSplit> unassigned;

        Enumerator(SplitEnumeratorContext<SequenceSplit> context, List<SequenceSplit> unassigned) {
            this.context = context;
            this.unassigned = new ArrayList<>(unassigned);
        }

        @Override
        public void start() {}

        @Override
        public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {}

        @Override
        public void addSplitsBack(List<SequenceSplit> splits, int subtaskId) {
            // The subtask registers again after its restart and gets them in addReader.
            unassigned.addAll(splits);
        }

        @Override
        public void addReader(int subtaskId) {
            int parallelism = context.currentParallelism();
            Iterator<SequenceSplit> splits = unassigned.iterator();
            while (splits.hasNext()) {
                SequenceSplit split = splits.next();
                if (split.index % parallelism == subtaskId) {
                    context.assignSplit(split, subtaskId);
                    splits.remove();
                }
            }
        }

        @Override
        public List<SequenceSplit> snapshotState(long checkpointId) {
            return new ArrayList<>(unassigned);
        }

        @Override
        public void close() {}
    }

    private static final class SplitSerializer implements SimpleVersionedSerializer<SequenceSplit> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(SequenceSplit split) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(16);
            write(split, out);
            return out.getCopyOfBuffer();
        }

        @Override
        public SequenceSplit deserialize(int version, byte[] serialized) throws IOException {
            return read(new DataInputDeserializer(serialized));
        }
    }

    private static final class SplitListSerializer
            implements SimpleVersionedSerializer<List<SequenceSplit>> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(List<SequenceSplit> splits) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(64);
            out.writeInt(splits.size());
            for (SequenceSplit split : splits) {
                write(split, out);
            }
            return out.getCopyOfBuffer();
        }

        @Override
        public List<SequenceSplit> deserialize(int version, byte[] serialized) throws IOException {
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            int size = in.readInt();
            List<SequenceSplit> splits = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                splits.add(read(in));
            }
            return splits;
        }
    }

    private static void write(SequenceSplit split, DataOutputSerializer out) throws IOException {
        out.writeInt(split.index);
        out.writeInt(split.count);
        out.writeLong(split.next);
    }

    private static SequenceSplit read(DataInputDeserializer in) throws IOException {
        return new SequenceSplit(in.readInt(), in.readInt(), in.readLong());
    }
}
