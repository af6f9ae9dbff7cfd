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

import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.table.data.RowData;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A reader of one of the benchmark's generator sources: every subtask generates its own share of
 * the rows, never finishes by itself (the driver cancels the job), and keeps nothing but its splits
 * in a checkpoint, as the benchmark never restores. Subclasses implement {@link #pollNext} and what
 * the reader does with splits.
 */
abstract class GeneratingReader<SplitT extends SourceSplit>
        implements SourceReader<RowData, SplitT> {

    private CompletableFuture<Void> available = CompletableFuture.completedFuture(null);

    /** Returns NOTHING_AVAILABLE and makes the reader available again after a pause. */
    final InputStatus pause(long millis) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS)
                .execute(() -> future.complete(null));
        return waitFor(future);
    }

    /** Returns NOTHING_AVAILABLE and makes the reader available again when the future completes. */
    final InputStatus waitFor(CompletableFuture<Void> future) {
        available = future;
        return InputStatus.NOTHING_AVAILABLE;
    }

    @Override
    public abstract InputStatus pollNext(ReaderOutput<RowData> output);

    @Override
    public CompletableFuture<Void> isAvailable() {
        return available;
    }

    @Override
    public void start() {}

    @Override
    public void notifyNoMoreSplits() {}

    @Override
    public void close() {}
}
