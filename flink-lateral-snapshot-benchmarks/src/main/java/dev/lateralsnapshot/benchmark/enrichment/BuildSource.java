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
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.RowKind;

import java.util.SplittableRandom;

/**
 * The build (reference) side as a changelog of rows {@code (k BIGINT, rate DOUBLE, name STRING,
 * updated_at TIMESTAMP_LTZ(3))}, as a compacted topic delivers it: first a snapshot, one +I per key
 * with a time in the past, then updates of random keys, each a -U of the current row (with its
 * time) and a +U of the next version (with the wall-clock time). Subtask {@code i} of {@code p}
 * owns the keys {@code k % p == i}. Updates follow the probe side: one per {@link
 * BenchRun#probeRowsPerUpdate} probe rows emitted, and at least one every {@value
 * #MAX_UPDATE_GAP_MILLIS} ms so that the build watermark keeps moving when the probe side is slow
 * or stopped.
 */
final class BuildSource extends NoSplitSource<RowData> {

    private static final long serialVersionUID = 1L;

    static final long MAX_UPDATE_GAP_MILLIS = 50;
    private static final int BATCH = 256;

    private final String runId;

    BuildSource(String runId) {
        this.runId = runId;
    }

    @Override
    public SourceReader<RowData, NoSplit> createReader(SourceReaderContext context) {
        return new Reader(BenchRun.get(runId), context.getIndexOfSubtask());
    }

    static double rate(long key, int version) {
        return ((key * 7 + version * 13L) % 1000) / 10.0;
    }

    static String name(long key, int version) {
        return "rate-" + key + "-v" + version;
    }

    static GenericRowData row(RowKind kind, long key, int version, long millis) {
        return GenericRowData.ofKind(
                kind,
                key,
                rate(key, version),
                StringData.fromString(name(key, version)),
                TimestampData.fromEpochMillis(millis));
    }

    private static final class Reader extends GeneratingReader {
        private final BenchRun run;
        private final int subtask;
        private final int parallelism;
        private final int owned;
        private final int[] versions;
        private final long[] times;
        private final SplittableRandom random;
        private int snapshotEmitted;
        private long updates;
        private long updatesStartMillis;
        private long lastMillis;

        Reader(BenchRun run, int subtask) {
            this.run = run;
            this.subtask = subtask;
            this.parallelism = run.parallelism;
            this.owned = (run.buildKeys - subtask + parallelism - 1) / parallelism;
            this.versions = new int[owned];
            this.times = new long[owned];
            this.random = new SplittableRandom(0xB01D + subtask);
        }

        @Override
        public InputStatus pollNext(ReaderOutput<RowData> output) {
            if (snapshotEmitted < owned) {
                int end = Math.min(owned, snapshotEmitted + BATCH);
                for (int j = snapshotEmitted; j < end; j++) {
                    long key = subtask + (long) j * parallelism;
                    times[j] = run.buildBaseMillis + key;
                    output.collect(row(RowKind.INSERT, key, 0, times[j]));
                }
                snapshotEmitted = end;
                if (snapshotEmitted == owned) {
                    run.snapshotDone();
                }
                return InputStatus.MORE_AVAILABLE;
            }
            if (!run.buildMayProceed()) {
                return pause(1);
            }
            long nowMillis = System.currentTimeMillis();
            if (updatesStartMillis == 0) {
                updatesStartMillis = nowMillis;
            }
            long target =
                    Math.max(
                            run.probeTotal() / (run.probeRowsPerUpdate * parallelism),
                            (nowMillis - updatesStartMillis) / MAX_UPDATE_GAP_MILLIS + 1);
            long n = Math.min(target - updates, BATCH / 2);
            if (n <= 0 || owned == 0) {
                return pause(1);
            }
            long millis = Math.max(nowMillis, lastMillis);
            lastMillis = millis;
            for (int i = 0; i < n; i++) {
                int j = random.nextInt(owned);
                long key = subtask + (long) j * parallelism;
                output.collect(row(RowKind.UPDATE_BEFORE, key, versions[j], times[j]));
                versions[j]++;
                times[j] = millis;
                output.collect(row(RowKind.UPDATE_AFTER, key, versions[j], millis));
            }
            updates += n;
            return InputStatus.MORE_AVAILABLE;
        }
    }
}
