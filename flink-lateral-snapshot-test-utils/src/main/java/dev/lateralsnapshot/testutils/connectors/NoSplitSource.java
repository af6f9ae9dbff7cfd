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
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import javax.annotation.Nullable;

import java.util.Collections;
import java.util.List;

/**
 * An unbounded source on Flink's {@link Source} interface that has no splits: each reader knows by
 * itself what its subtask emits (the rows a test hands to it, or rows it generates), so the
 * enumerator has nothing to assign, and neither readers nor enumerator checkpoint anything. The
 * source emits no watermarks; a table's watermark comes after the scan, as for any source that does
 * not take the watermark itself.
 */
public abstract class NoSplitSource<T> implements Source<T, NoSplitSource.NoSplit, Void> {

    private static final long serialVersionUID = 1L;

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
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
    public static final class NoSplit implements SourceSplit {
        private NoSplit() {}

        @Override
        public String splitId() {
            throw new UnsupportedOperationException("A source without splits has none.");
        }
    }

    /** A reader of a source without splits: it starts, checkpoints and closes with nothing. */
    public abstract static class Reader<T> implements SourceReader<T, NoSplit> {

        @Override
        public void start() {}

        @Override
        public List<NoSplit> snapshotState(long checkpointId) {
            return Collections.emptyList();
        }

        @Override
        public void addSplits(List<NoSplit> splits) {
            throw new UnsupportedOperationException("A source without splits has none.");
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
