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

import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;

import javax.annotation.Nullable;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A generator source on Flink's Source interface without splits: every subtask generates its own
 * share of the rows. Never finishes by itself (the driver cancels the job), and keeps no state: the
 * benchmark never restores.
 */
abstract class NoSplitSource implements Source<RowData, NoSplitSource.NoSplit, Void> {

    private static final long serialVersionUID = 1L;

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SplitEnumerator<NoSplit, Void> createEnumerator(SplitEnumeratorContext<NoSplit> context) {
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
            throw new UnsupportedOperationException();
        }
    }

    /** A reader that generates rows; subclasses implement {@link #pollNext}. */
    abstract static class GeneratingReader implements SourceReader<RowData, NoSplit> {

        private CompletableFuture<Void> available = CompletableFuture.completedFuture(null);

        /** Returns NOTHING_AVAILABLE and makes the reader available again after a pause. */
        final InputStatus pause(long millis) {
            CompletableFuture<Void> future = new CompletableFuture<>();
            available = future;
            CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS)
                    .execute(() -> future.complete(null));
            return InputStatus.NOTHING_AVAILABLE;
        }

        @Override
        public abstract InputStatus pollNext(ReaderOutput<RowData> output);

        @Override
        public void start() {}

        @Override
        public CompletableFuture<Void> isAvailable() {
            return available;
        }

        @Override
        public List<NoSplit> snapshotState(long checkpointId) {
            return Collections.emptyList();
        }

        @Override
        public void addSplits(List<NoSplit> splits) {
            throw new UnsupportedOperationException();
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
