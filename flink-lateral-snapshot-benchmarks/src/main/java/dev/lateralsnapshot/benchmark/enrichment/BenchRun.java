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

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the sources and the sink of one benchmark job share with the driver, looked up by the run id
 * that the table options carry. Everything runs in one JVM (an embedded MiniCluster), so plain
 * shared memory is enough.
 *
 * <p>The sequence of a run: the build sources emit their snapshot (one +I per build key, with times
 * in the past); once all of them have, the probe sources start, and from then on the build sources
 * emit one update (a -U/+U pair with the wall-clock time) per {@link #probeRowsPerUpdate} probe
 * rows. In a load-phase run the probe sources stop after {@link #loadRows} rows until the driver
 * has seen every join subtask flip, and the build sources emit nothing with a current time (so the
 * join's build watermark stays below {@code load_completed_time}) until the load phase has lasted
 * {@link #minLoadNanos} and the probe rows are buffered. A run whose load phase ends with the build
 * source's backlog ({@link #loadEndsWithBacklog}) starts the probe sources with the build sources,
 * so that their rows are buffered while the snapshot loads, and holds the build sources' current
 * changes until the driver has seen the flip, so that only the backlog can end the load phase. A
 * run with a bounded probe side ({@link #probeBounded}) emits its {@link #loadRows} probe rows, as
 * a backlog of facts that has been read to its end, and then no more unless the driver opens a join
 * phase after the drain ({@link #joinPhaseAfterBacklog}).
 */
final class BenchRun {

    private static final Map<String, BenchRun> RUNS = new ConcurrentHashMap<>();

    /** Spacing of the per-subtask counters in {@link #probeEmitted}: no false sharing. */
    private static final int PAD = 16;

    final String id;

    /** False for contenders without the build changelog (P0; P4 loads its cache itself). */
    final boolean readsBuildSource;

    final int parallelism;
    final int[] probeKeys;
    final int buildKeys;
    final long probeRowsPerUpdate;

    /** How far one probe subtask may run ahead of the slowest, in rows; 0 for no limit. */
    final long probeLeadRows;

    /** Probe rows per second over all subtasks; 0 for as fast as the job takes them. */
    final long fixedRate;

    /** Probe rows to buffer in a load-phase run; 0 for a run without a held load phase. */
    final long loadRows;

    final long minLoadNanos;

    /** The load phase ends with the build source's backlog, not when the driver lets it. */
    final boolean loadEndsWithBacklog;

    /** The probe sources stop for good after {@link #loadRows}, not only until the flip. */
    final boolean probeBounded;

    /** The time base of the sink's latency windows. */
    final long originNanos = System.nanoTime();

    /** Build snapshot rows have times from here on: in the past, before any load_completed_time. */
    final long buildBaseMillis = System.currentTimeMillis() - 86_400_000L;

    private final AtomicLongArray probeEmitted;
    private final AtomicInteger snapshotsDone = new AtomicInteger();
    volatile long buildStartNanos;
    volatile long snapshotDoneNanos;
    volatile long probeStartNanos;
    volatile boolean stop;
    volatile long stopNanos;
    volatile boolean loadGateOpen;
    volatile boolean flipped;

    /**
     * When the driver let the probe sources of a run with a bounded probe side go on past their
     * backlog, once every row of it had reached the sink; 0 before. The rows stamped from here on
     * are the join phase's, not the backlog's.
     */
    volatile long joinPhaseAfterBacklog;

    final SinkStats[] sinkStats;

    BenchRun(
            String id,
            int parallelism,
            ProbeKeys keys,
            long probeRowsPerUpdate,
            long probeLeadRows,
            long fixedRate,
            long loadRows,
            long minLoadMillis,
            boolean loadEndsWithBacklog,
            boolean probeBounded,
            boolean readsBuildSource) {
        this.id = id;
        this.readsBuildSource = readsBuildSource;
        this.parallelism = parallelism;
        this.probeKeys = keys.keys;
        this.buildKeys = keys.buildKeys;
        this.probeRowsPerUpdate = probeRowsPerUpdate;
        this.probeLeadRows = probeLeadRows;
        this.fixedRate = fixedRate;
        this.loadRows = loadRows;
        this.minLoadNanos = minLoadMillis * 1_000_000L;
        this.loadEndsWithBacklog = loadEndsWithBacklog;
        this.probeBounded = probeBounded;
        this.probeEmitted = new AtomicLongArray(parallelism * PAD);
        this.sinkStats = new SinkStats[parallelism];
        for (int i = 0; i < parallelism; i++) {
            sinkStats[i] = new SinkStats(originNanos, loadRows > 0);
        }
        RUNS.put(id, this);
    }

    static BenchRun get(String id) {
        BenchRun run = RUNS.get(id);
        if (run == null) {
            throw new IllegalStateException("No benchmark run " + id);
        }
        return run;
    }

    void close() {
        RUNS.remove(id);
    }

    boolean loadPhaseRun() {
        return loadRows > 0;
    }

    /** Whether a probe subtask stops at its share of {@link #loadRows} for now. */
    boolean probeHeldAtLoadRows() {
        return loadPhaseRun() && (!flipped || (probeBounded && joinPhaseAfterBacklog == 0));
    }

    // ---- probe progress ----

    void probeEmitted(int subtask, long total) {
        probeEmitted.lazySet(subtask * PAD, total);
    }

    /** Whether a probe subtask that has emitted this many rows is too far ahead of the slowest. */
    boolean probeAhead(long emitted) {
        if (probeLeadRows == 0) {
            return false;
        }
        long slowest = Long.MAX_VALUE;
        for (int i = 0; i < parallelism; i++) {
            slowest = Math.min(slowest, probeEmitted.get(i * PAD));
        }
        return emitted - slowest > probeLeadRows;
    }

    long probeTotal() {
        long total = 0;
        for (int i = 0; i < parallelism; i++) {
            total += probeEmitted.get(i * PAD);
        }
        return total;
    }

    long sinkTotal() {
        long total = 0;
        for (SinkStats stats : sinkStats) {
            total += stats.published;
        }
        return total;
    }

    /** The bucket of source time ({@link SinkStats#lastArrivalBySourceTime}) of a stamp. */
    int bucketOf(long stampNanos) {
        return (int) ((stampNanos - originNanos) / SinkStats.DRAIN_BUCKET_NANOS);
    }

    /**
     * The last arrival at any sink of a row stamped in a bucket of source time before the given
     * one; 0 when none has arrived.
     */
    long lastArrivalBefore(int bucket) {
        long last = 0;
        for (SinkStats stats : sinkStats) {
            long[] arrivals = stats.lastArrivalBySourceTime;
            for (int b = 0; b < Math.min(bucket, arrivals.length); b++) {
                last = Math.max(last, arrivals[b]);
            }
        }
        return last;
    }

    // ---- gates ----

    /** A build subtask is about to emit its first snapshot row. */
    synchronized void buildStarted() {
        if (buildStartNanos == 0) {
            buildStartNanos = System.nanoTime();
        }
    }

    void snapshotDone() {
        if (snapshotsDone.incrementAndGet() == parallelism) {
            snapshotDoneNanos = System.nanoTime();
        }
    }

    boolean snapshotsDone() {
        return !readsBuildSource || snapshotsDone.get() == parallelism;
    }

    /** Whether the probe sources may emit their rows. */
    boolean probeMayStart() {
        return loadEndsWithBacklog || snapshotsDone();
    }

    /** Whether the build side may emit current changes, which end the load phase. */
    boolean buildMayProceed() {
        if (!loadPhaseRun() || loadGateOpen) {
            return true;
        }
        if (loadEndsWithBacklog) {
            return flipped;
        }
        if (probeTotal() >= loadRows
                && snapshotsDone()
                && System.nanoTime() - snapshotDoneNanos >= minLoadNanos) {
            synchronized (this) {
                if (!loadGateOpen) {
                    loadGateOpen = true;
                }
            }
            return true;
        }
        return false;
    }
}
