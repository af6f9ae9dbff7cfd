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
import org.apache.flink.types.Row;

import javax.annotation.Nullable;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A source of the rows the demo hands it while the job runs, like the INSERT statements of the user
 * guide. The embedded cluster runs in the demo's JVM, so the running source finds the rows in a
 * static registry under the feed's name. It runs at parallelism 1 and ends when the demo says.
 */
final class DemoFeed implements Source<Row, DemoFeed.NoSplit, Void> {

    private static final long serialVersionUID = 1L;

    private static final Map<String, Rows> FEEDS = new ConcurrentHashMap<>();

    private final String name;

    DemoFeed(String name) {
        this.name = name;
        FEEDS.put(name, new Rows());
    }

    /** Hands rows to the running source, in this order. */
    void emit(Row... rows) {
        FEEDS.get(name).add(rows);
    }

    /** Ends the source once it has emitted every row handed to it. */
    void end() {
        FEEDS.get(name).end();
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<Row, NoSplit> createReader(SourceReaderContext context) {
        return new Reader(FEEDS.get(name));
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

    /** The rows not yet read, and a future that completes when there is something to read. */
    private static final class Rows {
        private final Queue<Row> rows = new ArrayDeque<>();
        private boolean ended;
        private CompletableFuture<Void> available = new CompletableFuture<>();

        synchronized void add(Row[] added) {
            Collections.addAll(rows, added);
            available.complete(null);
        }

        synchronized void end() {
            ended = true;
            available.complete(null);
        }

        synchronized InputStatus emitNext(ReaderOutput<Row> output) {
            Row row = rows.poll();
            if (row != null) {
                output.collect(row);
                return InputStatus.MORE_AVAILABLE;
            }
            if (ended) {
                return InputStatus.END_OF_INPUT;
            }
            if (available.isDone()) {
                available = new CompletableFuture<>();
            }
            return InputStatus.NOTHING_AVAILABLE;
        }

        synchronized CompletableFuture<Void> available() {
            return available;
        }
    }

    private static final class Reader implements SourceReader<Row, NoSplit> {
        private final Rows rows;

        Reader(Rows rows) {
            this.rows = rows;
        }

        @Override
        public void start() {}

        @Override
        public InputStatus pollNext(ReaderOutput<Row> output) {
            return rows.emitNext(output);
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return rows.available();
        }

        @Override
        public List<NoSplit> snapshotState(long checkpointId) {
            return Collections.emptyList();
        }

        @Override
        public void addSplits(List<NoSplit> splits) {}

        @Override
        public void notifyNoMoreSplits() {}

        @Override
        public void close() {}
    }

    /** The rows come from the feed, not from splits; this type only completes the signature. */
    static final class NoSplit implements SourceSplit {
        private NoSplit() {}

        @Override
        public String splitId() {
            throw new UnsupportedOperationException("A demo feed has no splits.");
        }
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

    /** The demo takes no checkpoints; Flink still asks for serializers. */
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
