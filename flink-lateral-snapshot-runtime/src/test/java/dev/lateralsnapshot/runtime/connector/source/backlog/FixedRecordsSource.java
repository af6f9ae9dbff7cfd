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

package dev.lateralsnapshot.runtime.connector.source.backlog;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.util.FlinkRuntimeException;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

/**
 * An unbounded source for the tests: each subtask's split holds a fixed number of records (the last
 * one none, if so made), and a reader that has read them has nothing more to read, for good; its
 * availability never completes again. The enumerator finds its splits as Flink's Kafka source finds
 * partitions, off the coordinator thread: a periodic call whose handler, the first time, makes a
 * one-time call whose handler assigns the splits to the registered readers; a reader that registers
 * later gets its split when it registers. The readers publish the records left in their splits as
 * the {@code pendingRecords} gauge from their first record on, as Flink's Kafka source sets it only
 * after a fetch that returned records; the reader of an empty split never sets it.
 */
final class FixedRecordsSource
        implements Source<Long, FixedRecordsSource.Split, Set<FixedRecordsSource.Split>>,
                ResultTypeQueryable<Long> {

    private static final long serialVersionUID = 1L;

    static final SimpleVersionedSerializer<Split> SPLIT_SERIALIZER = new SplitSerializer();
    static final SimpleVersionedSerializer<Set<Split>> CHECKPOINT_SERIALIZER =
            new CheckpointSerializer();

    /** The discovery runs at once and then, finding nothing new, every minute. */
    private static final long DISCOVERY_INTERVAL_MILLIS = 60_000;

    private final long recordsPerSplit;
    private final boolean lastSplitEmpty;

    FixedRecordsSource(long recordsPerSplit) {
        this(recordsPerSplit, false);
    }

    private FixedRecordsSource(long recordsPerSplit, boolean lastSplitEmpty) {
        this.recordsPerSplit = recordsPerSplit;
        this.lastSplitEmpty = lastSplitEmpty;
    }

    /** The source whose last subtask's split has no records, as an empty partition has none. */
    static FixedRecordsSource withLastSplitEmpty(long recordsPerSplit) {
        return new FixedRecordsSource(recordsPerSplit, true);
    }

    /** The records {@code [next, end)} of a subtask. */
    record Split(int subtask, long next, long end) implements SourceSplit {
        @Override
        public String splitId() {
            return "split-" + subtask;
        }
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public TypeInformation<Long> getProducedType() {
        return Types.LONG;
    }

    @Override
    public SplitEnumerator<Split, Set<Split>> createEnumerator(
            SplitEnumeratorContext<Split> context) {
        return new Enumerator(context, recordsPerSplit, lastSplitEmpty, null);
    }

    @Override
    public SplitEnumerator<Split, Set<Split>> restoreEnumerator(
            SplitEnumeratorContext<Split> context, Set<Split> unassigned) {
        return new Enumerator(context, recordsPerSplit, lastSplitEmpty, unassigned);
    }

    @Override
    public SourceReader<Long, Split> createReader(SourceReaderContext context) {
        return new Reader(context);
    }

    @Override
    public SimpleVersionedSerializer<Split> getSplitSerializer() {
        return SPLIT_SERIALIZER;
    }

    @Override
    public SimpleVersionedSerializer<Set<Split>> getEnumeratorCheckpointSerializer() {
        return CHECKPOINT_SERIALIZER;
    }

    // ---- enumerator ----

    /** Finds one split per subtask once, unless restored; its state is the splits unassigned. */
    private static final class Enumerator implements SplitEnumerator<Split, Set<Split>> {

        private final SplitEnumeratorContext<Split> context;
        private final long recordsPerSplit;
        private final boolean lastSplitEmpty;
        private final boolean restored;
        private final Map<Integer, Split> unassigned = new HashMap<>();
        private boolean discovered;

        Enumerator(
                SplitEnumeratorContext<Split> context,
                long recordsPerSplit,
                boolean lastSplitEmpty,
                @Nullable Set<Split> restoredUnassigned) {
            this.context = context;
            this.recordsPerSplit = recordsPerSplit;
            this.lastSplitEmpty = lastSplitEmpty;
            this.restored = restoredUnassigned != null;
            if (restoredUnassigned != null) {
                restoredUnassigned.forEach(split -> unassigned.put(split.subtask(), split));
            }
        }

        @Override
        public void start() {
            if (!restored) {
                context.callAsync(
                        context::currentParallelism,
                        this::parallelismFound,
                        0,
                        DISCOVERY_INTERVAL_MILLIS);
            }
        }

        private void parallelismFound(Integer parallelism, @Nullable Throwable error) {
            if (error != null) {
                throw new FlinkRuntimeException(error);
            }
            if (!discovered) {
                discovered = true;
                context.callAsync(() -> splits(parallelism), this::splitsFound);
            }
        }

        private List<Split> splits(int parallelism) {
            return IntStream.range(0, parallelism)
                    .mapToObj(
                            subtask -> {
                                long start = subtask * recordsPerSplit;
                                boolean empty = lastSplitEmpty && subtask == parallelism - 1;
                                return new Split(
                                        subtask, start, empty ? start : start + recordsPerSplit);
                            })
                    .toList();
        }

        private void splitsFound(List<Split> splits, @Nullable Throwable error) {
            if (error != null) {
                throw new FlinkRuntimeException(error);
            }
            splits.forEach(split -> unassigned.put(split.subtask(), split));
            context.registeredReaders().keySet().forEach(this::assignTo);
        }

        private void assignTo(int subtask) {
            Split split = unassigned.remove(subtask);
            if (split != null) {
                context.assignSplit(split, subtask);
            }
        }

        @Override
        public void addReader(int subtaskId) {
            assignTo(subtaskId);
        }

        @Override
        public void addSplitsBack(List<Split> splits, int subtaskId) {
            splits.forEach(split -> unassigned.put(split.subtask(), split));
        }

        @Override
        public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {}

        @Override
        public Set<Split> snapshotState(long checkpointId) {
            return new HashSet<>(unassigned.values());
        }

        @Override
        public void close() {}
    }

    // ---- reader ----

    /** Emits one record per poll; its gauge, once it has emitted one, is the records left. */
    private static final class Reader implements SourceReader<Long, Split> {

        private final SourceReaderContext context;
        private final ArrayDeque<Split> splits = new ArrayDeque<>();
        private CompletableFuture<Void> splitsAdded = new CompletableFuture<>();
        private volatile long pending;
        private boolean gaugeSet;

        Reader(SourceReaderContext context) {
            this.context = context;
        }

        @Override
        public void start() {}

        @Override
        public InputStatus pollNext(ReaderOutput<Long> output) {
            while (!splits.isEmpty() && splits.peek().next() == splits.peek().end()) {
                splits.poll();
            }
            Split split = splits.poll();
            if (split == null) {
                return InputStatus.NOTHING_AVAILABLE;
            }
            output.collect(split.next());
            splits.addFirst(new Split(split.subtask(), split.next() + 1, split.end()));
            pending--;
            if (!gaugeSet) {
                gaugeSet = true;
                context.metricGroup().setPendingRecordsGauge(() -> pending);
            }
            return InputStatus.MORE_AVAILABLE;
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return pending > 0 ? CompletableFuture.completedFuture(null) : splitsAdded;
        }

        @Override
        public void addSplits(List<Split> added) {
            splits.addAll(added);
            pending += added.stream().mapToLong(split -> split.end() - split.next()).sum();
            CompletableFuture<Void> toComplete = splitsAdded;
            splitsAdded = new CompletableFuture<>();
            toComplete.complete(null);
        }

        @Override
        public List<Split> snapshotState(long checkpointId) {
            return new ArrayList<>(splits);
        }

        @Override
        public void notifyNoMoreSplits() {}

        @Override
        public void close() {}
    }

    // ---- serializers ----

    private static final class SplitSerializer implements SimpleVersionedSerializer<Split> {

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Split split) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(20);
            write(split, out);
            return out.getCopyOfBuffer();
        }

        @Override
        public Split deserialize(int version, byte[] serialized) throws IOException {
            return read(new DataInputDeserializer(serialized));
        }

        static void write(Split split, DataOutputView out) throws IOException {
            out.writeInt(split.subtask());
            out.writeLong(split.next());
            out.writeLong(split.end());
        }

        static Split read(DataInputView in) throws IOException {
            return new Split(in.readInt(), in.readLong(), in.readLong());
        }
    }

    private static final class CheckpointSerializer
            implements SimpleVersionedSerializer<Set<Split>> {

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Set<Split> splits) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(64);
            out.writeInt(splits.size());
            for (Split split : splits) {
                SplitSerializer.write(split, out);
            }
            return out.getCopyOfBuffer();
        }

        @Override
        public Set<Split> deserialize(int version, byte[] serialized) throws IOException {
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            Set<Split> splits = new HashSet<>();
            for (int count = in.readInt(); count > 0; count--) {
                splits.add(SplitSerializer.read(in));
            }
            return splits;
        }
    }
}
