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

import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.table.connector.source.DynamicTableSource.DataStructureConverter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import static org.apache.flink.util.Preconditions.checkState;

/**
 * A source whose subtasks emit the rows handed to a {@link ProbeChannel}, each subtask those of its
 * own queue, until the channel {@link ProbeChannel#end ends}. The {@code 'test-probe'} tables read
 * it; a DataStream program reads it through {@link #of}.
 */
public final class ChannelSource<T> extends NoSplitSource<T> {

    private static final long serialVersionUID = 1L;

    private final String channelId;
    private final RowConversion<Row, T> conversion;

    private ChannelSource(String channelId, RowConversion<Row, T> conversion) {
        this.channelId = channelId;
        this.conversion = conversion;
    }

    /** A source of the rows handed to the channel, as they are, for the DataStream API. */
    public static ChannelSource<Row> of(ProbeChannel channel) {
        return new ChannelSource<>(channel.id(), RowConversion.rows());
    }

    /** The source of a {@code 'test-probe'} table. */
    static ChannelSource<RowData> ofTable(String channelId, DataStructureConverter converter) {
        return new ChannelSource<>(channelId, RowConversion.toInternal(converter));
    }

    @Override
    public SourceReader<T, NoSplit> createReader(SourceReaderContext context) {
        ProbeChannel channel = ProbeChannel.get(channelId);
        checkState(
                context.currentParallelism() == channel.parallelism(),
                "The source runs with parallelism %s, but its channel feeds %s subtasks.",
                context.currentParallelism(),
                channel.parallelism());
        return new ChannelReader<>(
                channel.queue(context.getIndexOfSubtask()),
                conversion.open(context.getUserCodeClassLoader().asClassLoader()));
    }

    private static final class ChannelReader<T> extends NoSplitSource.Reader<T> {
        private final ProbeChannel.SubtaskQueue queue;
        private final Function<Row, T> conversion;

        ChannelReader(ProbeChannel.SubtaskQueue queue, Function<Row, T> conversion) {
            this.queue = queue;
            this.conversion = conversion;
        }

        @Override
        public InputStatus pollNext(ReaderOutput<T> output) {
            Row row = queue.poll();
            if (row == null) {
                return queue.drained() ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
            }
            output.collect(conversion.apply(row));
            return InputStatus.MORE_AVAILABLE;
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return queue.available();
        }
    }
}
