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

import dev.lateralsnapshot.testutils.connectors.NoSplitSource;

import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;

import java.util.List;

/**
 * The probe (fact) stream: append-only rows {@code (seq BIGINT, k BIGINT, amount DOUBLE, ts
 * TIMESTAMP_LTZ(3), src_nanos BIGINT)}. Subtask {@code i} of {@code p} emits the rows {@code seq =
 * i, i + p, i + 2p, ...}; the key of row {@code seq} comes from the run's shared key sequence, so
 * the data does not depend on the contender. {@code ts} is the wall-clock time and {@code
 * src_nanos} the {@link System#nanoTime()} at emission (one stamp per batch of at most {@value
 * #BATCH} rows), read by the sink for the end-to-end latency. With {@link BenchRun#probeLeadRows} a
 * subtask waits while it is that far ahead of the slowest one, as the partitions of a topic written
 * at one rate arrive: the probe rows a join subtask receives then follow from how the join
 * distributes them, and not from which source thread the scheduler of a loaded machine favours.
 */
final class ProbeSource extends NoSplitSource<RowData> {

    private static final long serialVersionUID = 1L;

    static final int BATCH = 64;

    private final String runId;

    ProbeSource(String runId) {
        this.runId = runId;
    }

    @Override
    public SourceReader<RowData, NoSplit> createReader(SourceReaderContext context) {
        return new Reader(BenchRun.get(runId), context.getIndexOfSubtask());
    }

    private static final class Reader extends GeneratingReader<NoSplit> {
        private final BenchRun run;
        private final int subtask;
        private final int parallelism;
        private final int[] keys;
        private final long loadShare;
        private final double ratePerNano;
        private long emitted;
        private long startNanos;

        Reader(BenchRun run, int subtask) {
            this.run = run;
            this.subtask = subtask;
            this.parallelism = run.parallelism;
            this.keys = run.probeKeys;
            this.loadShare =
                    run.loadRows / parallelism + (subtask < run.loadRows % parallelism ? 1 : 0);
            this.ratePerNano = run.fixedRate / (double) parallelism / 1e9;
        }

        @Override
        public InputStatus pollNext(ReaderOutput<RowData> output) {
            if (run.stop) {
                return pause(10);
            }
            if (!run.probeMayStart()) {
                return pause(1);
            }
            long n = BATCH;
            if (run.probeHeldAtLoadRows()) {
                if (emitted >= loadShare) {
                    return pause(1);
                }
                n = Math.min(n, loadShare - emitted);
            }
            if (run.probeAhead(emitted)) {
                return pause(1);
            }
            long now = System.nanoTime();
            if (startNanos == 0) {
                startNanos = now;
                synchronized (run) {
                    if (run.probeStartNanos == 0) {
                        run.probeStartNanos = now;
                    }
                }
            }
            if (ratePerNano > 0) {
                long due = (long) ((now - startNanos) * ratePerNano) - emitted;
                if (due <= 0) {
                    return pause(1);
                }
                n = Math.min(n, due);
            }
            TimestampData ts = TimestampData.fromEpochMillis(System.currentTimeMillis());
            Long stamp = now;
            int length = keys.length;
            for (int i = 0; i < n; i++) {
                long seq = emitted * parallelism + subtask;
                GenericRowData row = new GenericRowData(5);
                row.setField(0, seq);
                row.setField(1, (long) keys[(int) (seq % length)]);
                row.setField(2, (seq % 10_000) / 100.0);
                row.setField(3, ts);
                row.setField(4, stamp);
                output.collect(row);
                emitted++;
            }
            run.probeEmitted(subtask, emitted);
            return InputStatus.MORE_AVAILABLE;
        }

        @Override
        public List<NoSplit> snapshotState(long checkpointId) {
            return List.of();
        }

        @Override
        public void addSplits(List<NoSplit> splits) {
            throw new UnsupportedOperationException("A source without splits has none.");
        }
    }
}
