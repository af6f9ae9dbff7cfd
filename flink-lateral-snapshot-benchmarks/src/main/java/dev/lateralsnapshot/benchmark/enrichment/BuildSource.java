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
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.RowKind;

import javax.annotation.Nullable;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/**
 * The build (reference) side as a changelog of rows {@code (k BIGINT, rate DOUBLE, name STRING,
 * updated_at TIMESTAMP_LTZ(3))}, as a compacted topic delivers it: first a snapshot, one +I per key
 * with a time in the past, then updates of random keys, each a -U of the current row (with its
 * time) and a +U of the next version (with the wall-clock time). Subtask {@code i} of {@code p}
 * owns the keys {@code k % p == i}. Updates follow the probe side: one per {@link
 * BenchRun#probeRowsPerUpdate} probe rows emitted, and at least one every {@value
 * #MAX_UPDATE_GAP_MILLIS} ms so that the build watermark keeps moving when the probe side is slow
 * or stopped.
 *
 * <p>As a topic's partitions, the keys of a subtask are a split ({@link Share}) that the enumerator
 * assigns to that subtask when it registers, and each reader publishes Flink's {@code
 * pendingRecords} gauge: the snapshot rows it has not emitted yet, 0 from then on, since updates
 * are made as they are emitted. With {@code
 * table.exec.lateral-snapshot.load-completed-on-caught-up} the library reads them as it reads a
 * Kafka source's, and the source reports a backlog until every reader has emitted its snapshot.
 * Without a split, a reader would take the library's path for an empty topic instead (caught up the
 * first time it has nothing to read), which is not the one a Kafka source's reader takes.
 *
 * <p>{@link #upserts} makes the source an upsert topic's: an update is the +U alone, without the -U
 * of the row it replaces.
 */
final class BuildSource implements Source<RowData, BuildSource.Share, Void> {

    private static final long serialVersionUID = 1L;

    static final long MAX_UPDATE_GAP_MILLIS = 50;
    private static final int BATCH = 256;

    private final String runId;
    private final boolean upserts;

    private BuildSource(String runId, boolean upserts) {
        this.runId = runId;
        this.upserts = upserts;
    }

    /** The changelog of a compacted topic read with its updates' old rows (+I, -U, +U). */
    static BuildSource changelog(String runId) {
        return new BuildSource(runId, false);
    }

    /** The upserts of a compacted topic (+I, +U), as {@code upsert-kafka} reads them. */
    static BuildSource upserts(String runId) {
        return new BuildSource(runId, true);
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SplitEnumerator<Share, Void> createEnumerator(SplitEnumeratorContext<Share> context) {
        return new Enumerator(context);
    }

    @Override
    public SplitEnumerator<Share, Void> restoreEnumerator(
            SplitEnumeratorContext<Share> context, Void checkpoint) {
        return new Enumerator(context);
    }

    @Override
    public SimpleVersionedSerializer<Share> getSplitSerializer() {
        return new ShareSerializer();
    }

    @Override
    public SimpleVersionedSerializer<Void> getEnumeratorCheckpointSerializer() {
        return new NothingSerializer();
    }

    @Override
    public SourceReader<RowData, Share> createReader(SourceReaderContext context) {
        return new Reader(BenchRun.get(runId), context, upserts);
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

    /** The keys of one subtask. The benchmark never restores, so it carries no position. */
    static final class Share implements SourceSplit {
        final int subtask;

        Share(int subtask) {
            this.subtask = subtask;
        }

        @Override
        public String splitId() {
            return "keys-" + subtask;
        }
    }

    /** Assigns each subtask its share of the keys when it registers, as its only split. */
    private static final class Enumerator implements SplitEnumerator<Share, Void> {
        private final SplitEnumeratorContext<Share> context;

        Enumerator(SplitEnumeratorContext<Share> context) {
            this.context = context;
        }

        @Override
        public void start() {}

        @Override
        public void addReader(int subtaskId) {
            context.assignSplit(new Share(subtaskId), subtaskId);
        }

        @Override
        public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {}

        @Override
        public void addSplitsBack(List<Share> splits, int subtaskId) {}

        @Override
        public Void snapshotState(long checkpointId) {
            return null;
        }

        @Override
        public void close() {}
    }

    private static final class ShareSerializer implements SimpleVersionedSerializer<Share> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Share share) {
            return ByteBuffer.allocate(Integer.BYTES).putInt(share.subtask).array();
        }

        @Override
        public Share deserialize(int version, byte[] serialized) {
            return new Share(ByteBuffer.wrap(serialized).getInt());
        }
    }

    /** The enumerator keeps no state. */
    private static final class NothingSerializer implements SimpleVersionedSerializer<Void> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Void nothing) {
            return new byte[0];
        }

        @Override
        public Void deserialize(int version, byte[] serialized) {
            return null;
        }
    }

    private static final class Reader extends GeneratingReader<Share> {
        private final BenchRun run;
        private final SourceReaderContext context;
        private final int subtask;
        private final int parallelism;
        private final int owned;
        private final int[] versions;
        private final long[] times;
        private final SplittableRandom random;
        private final boolean upserts;
        private final CompletableFuture<Void> shareAssigned = new CompletableFuture<>();
        @Nullable private Share share;

        /** Read by the metric reporter's thread through the pendingRecords gauge. */
        private volatile int snapshotEmitted;

        private long updates;
        private long updatesStartMillis;
        private long lastMillis;

        Reader(BenchRun run, SourceReaderContext context, boolean upserts) {
            this.run = run;
            this.upserts = upserts;
            this.context = context;
            this.subtask = context.getIndexOfSubtask();
            this.parallelism = run.parallelism;
            this.owned = (run.buildKeys - subtask + parallelism - 1) / parallelism;
            this.versions = new int[owned];
            this.times = new long[owned];
            this.random = new SplittableRandom(0xB01D + subtask);
        }

        @Override
        public void start() {
            context.metricGroup().setPendingRecordsGauge(() -> (long) (owned - snapshotEmitted));
        }

        @Override
        public void addSplits(List<Share> splits) {
            share = splits.get(0);
            shareAssigned.complete(null);
        }

        @Override
        public InputStatus pollNext(ReaderOutput<RowData> output) {
            if (share == null) {
                return waitFor(shareAssigned);
            }
            if (snapshotEmitted < owned) {
                if (snapshotEmitted == 0) {
                    run.buildStarted();
                }
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
                if (!upserts) {
                    output.collect(row(RowKind.UPDATE_BEFORE, key, versions[j], times[j]));
                }
                versions[j]++;
                times[j] = millis;
                output.collect(row(RowKind.UPDATE_AFTER, key, versions[j], millis));
            }
            updates += n;
            return InputStatus.MORE_AVAILABLE;
        }

        @Override
        public List<Share> snapshotState(long checkpointId) {
            return share == null ? List.of() : List.of(share);
        }
    }
}
