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
import org.apache.flink.table.connector.RuntimeConverter;
import org.apache.flink.table.connector.source.DynamicTableSource.DataStructureConverter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;

import javax.annotation.Nullable;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.apache.flink.util.Preconditions.checkState;

/**
 * An unbounded source whose subtasks emit the rows a test hands to a {@link ProbeChannel}.
 *
 * <p>It has no splits: every reader reads the channel's queue of its own subtask, so the enumerator
 * has nothing to assign and nothing is checkpointed. The source emits no watermarks; the planner
 * adds the table's watermark after the scan, as it does for any source that does not take the
 * watermark itself.
 */
final class ChannelSource implements Source<RowData, ChannelSource.NoSplit, Void> {

    private static final long serialVersionUID = 1L;

    private final String channelId;
    private final DataStructureConverter converter;

    ChannelSource(String channelId, DataStructureConverter converter) {
        this.channelId = channelId;
        this.converter = converter;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<RowData, NoSplit> createReader(SourceReaderContext context) {
        ProbeChannel channel = ProbeChannel.get(channelId);
        checkState(
                context.currentParallelism() == channel.parallelism(),
                "The probe source runs with parallelism %s, but its channel feeds %s subtasks.",
                context.currentParallelism(),
                channel.parallelism());
        converter.open(
                RuntimeConverter.Context.create(context.getUserCodeClassLoader().asClassLoader()));
        return new Reader(channel.queue(context.getIndexOfSubtask()), converter);
    }

    @Override
    public SplitEnumerator<NoSplit, Void> createEnumerator(
            SplitEnumeratorContext<NoSplit> context) {
        return new NoSplitEnumerator();
    }

    @Override
    public SplitEnumerator<NoSplit, Void> restoreEnumerator(
            SplitEnumeratorContext<NoSplit> context, Void checkpoint) {
        return new NoSplitEnumerator();
    }

    @Override
    public SimpleVersionedSerializer<NoSplit> getSplitSerializer() {
        return new NothingSerializer<>();
    }

    @Override
    public SimpleVersionedSerializer<Void> getEnumeratorCheckpointSerializer() {
        return new NothingSerializer<>();
    }

    /** The split type of a source without splits; never instantiated. */
    static final class NoSplit implements SourceSplit {
        private NoSplit() {}

        @Override
        public String splitId() {
            throw new UnsupportedOperationException("The probe source has no splits.");
        }
    }

    private static final class Reader implements SourceReader<RowData, NoSplit> {
        private final ProbeChannel.SubtaskQueue queue;
        private final DataStructureConverter converter;

        Reader(ProbeChannel.SubtaskQueue queue, DataStructureConverter converter) {
            this.queue = queue;
            this.converter = converter;
        }

        @Override
        public void start() {}

        @Override
        public InputStatus pollNext(ReaderOutput<RowData> output) {
            Row row = queue.poll();
            if (row == null) {
                return InputStatus.NOTHING_AVAILABLE;
            }
            output.collect((RowData) converter.toInternal(row));
            return InputStatus.MORE_AVAILABLE;
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return queue.available();
        }

        @Override
        public List<NoSplit> snapshotState(long checkpointId) {
            return Collections.emptyList();
        }

        @Override
        public void addSplits(List<NoSplit> splits) {
            throw new UnsupportedOperationException("The probe source has no splits.");
        }

        @Override
        public void notifyNoMoreSplits() {}

        @Override
        public void close() {}
    }

    private static final class NoSplitEnumerator implements SplitEnumerator<NoSplit, Void> {
        @Override
        public void start() {}

        @Override
        public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {}

        @Override
        public void addSplitsBack(List<NoSplit> splits, int subtaskId) {}

        @Override
        public void addReader(int subtaskId) {}

        @Override
        public Void snapshotState(long checkpointId) {
            return null;
        }

        @Override
        public void close() {}
    }

    /** Serializes the empty enumerator state; there is never a split to serialize. */
    private static final class NothingSerializer<T> implements SimpleVersionedSerializer<T> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(T nothing) {
            return new byte[0];
        }

        @Override
        public T deserialize(int version, byte[] serialized) {
            return null;
        }
    }
}
