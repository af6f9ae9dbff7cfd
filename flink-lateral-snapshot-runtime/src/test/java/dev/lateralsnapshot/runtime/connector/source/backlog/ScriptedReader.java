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

import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.mocks.MockSourceSplit;
import org.apache.flink.core.io.InputStatus;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A reader whose answers the test sets: the status of the next poll, its availability, and the
 * records it has left, which it publishes as the {@code pendingRecords} gauge once the test first
 * sets them, as Flink's Kafka source does after its first fetch. A poll can fail. It writes down
 * what it is called with.
 */
class ScriptedReader implements SourceReader<Integer, MockSourceSplit> {

    /** What the next poll returns. */
    InputStatus status = InputStatus.NOTHING_AVAILABLE;

    /** What the next poll throws instead, if anything. */
    IOException failure;

    /** What {@link #isAvailable()} returns. */
    CompletableFuture<Void> available = new CompletableFuture<>();

    final List<MockSourceSplit> splits = new ArrayList<>();
    final List<SourceEvent> events = new ArrayList<>();
    final List<String> calls = new ArrayList<>();

    private final SourceReaderContext context;
    private volatile long pendingRecords;
    private boolean gaugeSet;

    ScriptedReader(SourceReaderContext context) {
        this.context = context;
    }

    /** Sets the records left, and the gauge the first time. */
    void pendingRecords(long records) {
        pendingRecords = records;
        if (!gaugeSet) {
            gaugeSet = true;
            context.metricGroup().setPendingRecordsGauge(() -> pendingRecords);
        }
    }

    /** Sends an event to the enumerator through the context the reader was created with. */
    void sendToEnumerator(SourceEvent event) {
        context.sendSourceEventToCoordinator(event);
    }

    @Override
    public void start() {
        calls.add("start");
    }

    @Override
    public InputStatus pollNext(ReaderOutput<Integer> output) throws IOException {
        if (failure != null) {
            throw failure;
        }
        return status;
    }

    @Override
    public List<MockSourceSplit> snapshotState(long checkpointId) {
        return splits;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return available;
    }

    @Override
    public void addSplits(List<MockSourceSplit> added) {
        splits.addAll(added);
    }

    @Override
    public void notifyNoMoreSplits() {
        calls.add("notifyNoMoreSplits");
    }

    @Override
    public void handleSourceEvents(SourceEvent sourceEvent) {
        events.add(sourceEvent);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        calls.add("notifyCheckpointComplete " + checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        calls.add("notifyCheckpointAborted " + checkpointId);
    }

    @Override
    public void pauseOrResumeSplits(
            Collection<String> splitsToPause, Collection<String> splitsToResume) {
        calls.add("pause " + splitsToPause + " resume " + splitsToResume);
    }

    @Override
    public void close() {
        calls.add("close");
    }
}
