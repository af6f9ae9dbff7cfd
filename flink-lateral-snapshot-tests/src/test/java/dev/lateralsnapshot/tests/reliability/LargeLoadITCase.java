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

package dev.lateralsnapshot.tests.reliability;

import dev.lateralsnapshot.tests.runtime.Await;
import dev.lateralsnapshot.tests.runtime.MiniClusterTestBase;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.connectors.SequenceGate;
import dev.lateralsnapshot.testutils.connectors.SequenceTableFactory;
import dev.lateralsnapshot.testutils.environments.StateBackendKind;

import org.apache.flink.table.api.TableEnvironment;

import com.sun.management.GarbageCollectorMXBean;
import com.sun.management.GcInfo;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static dev.lateralsnapshot.tests.reliability.ControlledJob.insert;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_PROBE_SIDE_RECORDS_BUFFERED;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ENRICHED_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ORDERS_TIME_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A large load (docs/reliability.md, section 3): one million orders buffered in the load phase on
 * RocksDB, with incremental checkpoints every 10 seconds. The checkpoints taken while the orders
 * are buffered must complete, the flip must emit every order exactly once, and the heap must stay
 * bounded: the buffered orders live in RocksDB, off the heap. The test prints what it measured.
 *
 * <p>Not part of the default build (it runs for minutes); run it with
 *
 * <pre>{@code
 * mvn -B -o verify -pl flink-lateral-snapshot-tests -Plarge-load
 * }</pre>
 *
 * <p>With three keys, as the orders' three currencies, each key buffers a third of the orders; with
 * 100,000 keys ten each.
 */
@Tag("large-load")
class LargeLoadITCase extends MiniClusterTestBase {

    private static final long ORDERS = 1_000_000;

    private static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(10);

    /** Checkpoints that must complete while every order is buffered. */
    private static final int CHECKPOINTS_WHILE_BUFFERED = 2;

    /** The heap may hold the MiniCluster and the test, not the buffered orders. */
    private static final long HEAP_BOUND_AFTER_GC = 512L << 20;

    private static final LocalDateTime TEN = LocalDateTime.of(2026, 1, 1, 10, 0);

    @ParameterizedTest(name = "{0} keys")
    @ValueSource(ints = {3, 100_000})
    void buffersOneMillionOrdersAndEmitsEachOnceAtTheFlip(int keys) throws Exception {
        Path output = Files.createDirectory(directory.resolve("output"));
        try (HeapSampler heap = new HeapSampler();
                SequenceGate orders = SequenceGate.open(4);
                ControlledJob job = ControlledJob.prepare(StateBackendKind.ROCKSDB, 2)) {
            TableEnvironment env = job.env();
            env.getConfig()
                    .set(
                            "execution.checkpointing.interval",
                            CHECKPOINT_INTERVAL.toMillis() + " ms");
            env.getConfig().set("execution.checkpointing.incremental", "true");
            env.getConfig()
                    .set(
                            "execution.checkpointing.dir",
                            directory.resolve("checkpoints").toUri().toString());
            env.executeSql(
                    createTable(
                            "orders",
                            "order_id BIGINT, currency AS CAST(order_id % "
                                    + keys
                                    + " AS STRING), "
                                    + ORDERS_TIME_COLUMNS,
                            SequenceTableFactory.options(orders)));
            env.executeSql(createTable("rates", RATES_COLUMNS, job.ratesOptions()));
            env.executeSql(
                    createTable(
                            "enriched",
                            ENRICHED_COLUMNS,
                            Directories.filesystem(output, "csv")
                                    + ", 'sink.rolling-policy.rollover-interval' = '1 s',"
                                    + " 'sink.rolling-policy.check-interval' = '500 ms'"));
            job.submit(
                    cluster(),
                    "INSERT INTO enriched SELECT o.order_id, o.currency, r.rate FROM orders AS o"
                            + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                            + " on_time => DESCRIPTOR(update_time),"
                            + " load_completed_time =>"
                            + " CAST(TIMESTAMP '2026-01-02 00:00:00' AS TIMESTAMP_LTZ(3))) AS r"
                            + " ON o.currency = r.currency");
            RunningJob running = job.job();
            // Rates for three keys: with more keys, most orders are padded, as the LEFT join does.
            job.emitBuild(insert("0", 1.0, TEN), insert("1", 2.0, TEN), insert("2", 3.0, TEN));

            long start = System.nanoTime();
            orders.release(ORDERS);
            Await.until("all orders are emitted", orders::allReleasedEmitted, running::toString);
            running.awaitMetrics(
                    "all orders are buffered",
                    m -> m.sum(NUM_PROBE_SIDE_RECORDS_BUFFERED) == ORDERS);
            double bufferSeconds = (System.nanoTime() - start) / 1e9;

            long checkpointsBefore = running.completedCheckpoints();
            // A checkpoint due before all tasks ran counts as failed: only later failures count.
            long failedBefore = running.failedCheckpoints();
            long waitStart = System.nanoTime();
            List<String> bufferedCheckpoints = new ArrayList<>();
            for (int checkpoint = 1; checkpoint <= CHECKPOINTS_WHILE_BUFFERED; checkpoint++) {
                long completed = checkpointsBefore + checkpoint;
                Await.until(
                        "checkpoint " + checkpoint + " with all orders buffered",
                        () -> running.completedCheckpoints() >= completed,
                        running::toString);
                bufferedCheckpoints.add(running.latestCheckpoint());
            }
            double checkpointWaitSeconds = (System.nanoTime() - waitStart) / 1e9;
            String heapWhileBuffered = heap.endPhase();
            assertThat(running.failedCheckpoints())
                    .as("checkpoints failed while buffered")
                    .isEqualTo(failedBefore);
            assertThat(job.metrics().longs(CURRENT_PHASE).values())
                    .as("phase while buffered: %s", job.metrics())
                    .containsOnly(0L);

            long flipStart = System.nanoTime();
            job.emitBuild(insert("Z", 0.0, LocalDateTime.of(2026, 1, 2, 0, 0)));
            // The gauges of one report are read one after the other, while a subtask may still be
            // emitting: the buffer shows empty in a report after the one with all rows out.
            running.awaitMetrics(
                    "the flip emits every order and empties the buffer",
                    m ->
                            m.allEqual(CURRENT_PHASE, 1)
                                    && m.sum("numRecordsOut") >= ORDERS
                                    && m.sum(NUM_PROBE_SIDE_RECORDS_BUFFERED) == 0);
            double flipSeconds = (System.nanoTime() - flipStart) / 1e9;
            String heapAtTheFlip = heap.endPhase();

            Await.until(
                    ORDERS + " committed output rows",
                    () -> lineCount(output) >= ORDERS,
                    () -> lineCount(output) + " rows");
            running.awaitCheckpointTriggeredFromNow();
            assertExactlyOnce(output);
            double totalSeconds = (System.nanoTime() - start) / 1e9;

            System.out.printf(
                    "[reliability] large load on RocksDB (incremental, checkpoints every %d s),"
                            + " %d keys: %d orders in, %d committed out;"
                            + " buffering %.1f s (%.0f rows/s);"
                            + " %d checkpoints completed while buffered (waited %.1f s): %s,"
                            + " %d failed; flip %.1f s (%.0f rows/s); total %.1f s;"
                            + " heap (max %d MiB) while buffered: %s; at the flip: %s;"
                            + " process peak resident memory %s%n",
                    CHECKPOINT_INTERVAL.getSeconds(),
                    keys,
                    ORDERS,
                    lineCount(output),
                    bufferSeconds,
                    ORDERS / bufferSeconds,
                    CHECKPOINTS_WHILE_BUFFERED,
                    checkpointWaitSeconds,
                    String.join("; ", bufferedCheckpoints),
                    running.failedCheckpoints() - failedBefore,
                    flipSeconds,
                    ORDERS / flipSeconds,
                    totalSeconds,
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax() >> 20,
                    heapWhileBuffered,
                    heapAtTheFlip,
                    HeapSampler.peakResidentMemory());
            assertThat(heap.peakAfterGcOfAllPhases()).isLessThan(HEAP_BOUND_AFTER_GC);
        }
    }

    private static long lineCount(Path directory) {
        AtomicLong lines = new AtomicLong();
        Directories.forEachCommittedLine(directory, line -> lines.incrementAndGet());
        return lines.get();
    }

    private static void assertExactlyOnce(Path output) {
        BitSet seen = new BitSet((int) ORDERS + 1);
        AtomicLong duplicates = new AtomicLong();
        Directories.forEachCommittedLine(
                output,
                line -> {
                    int order = Integer.parseInt(line.substring(0, line.indexOf(',')));
                    if (seen.get(order)) {
                        duplicates.incrementAndGet();
                    }
                    seen.set(order);
                });
        assertThat(duplicates.get()).as("orders emitted twice").isZero();
        assertThat(seen.cardinality()).as("orders emitted").isEqualTo(ORDERS);
        assertThat(seen.nextSetBit(0)).isEqualTo(1);
    }

    /**
     * Samples the heap every 100 ms, per phase of the test: the peak of the heap in use (garbage
     * included), and the peak of the heap right after a garbage collection (what survives it: the
     * live data). Also reads the peak resident memory of the process, which includes RocksDB's
     * native memory.
     */
    private static final class HeapSampler implements AutoCloseable {
        private final ScheduledExecutorService sampler =
                Executors.newSingleThreadScheduledExecutor();
        private final AtomicLong peakUsed = new AtomicLong();
        private final AtomicLong peakAfterGc = new AtomicLong();
        private final Map<String, Long> lastGcIds = new ConcurrentHashMap<>();
        private long peakAfterGcOfAllPhases;

        HeapSampler() {
            sampler.scheduleAtFixedRate(this::sample, 0, 100, TimeUnit.MILLISECONDS);
        }

        private void sample() {
            peakUsed.accumulateAndGet(
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max);
            for (GarbageCollectorMXBean collector :
                    ManagementFactory.getPlatformMXBeans(GarbageCollectorMXBean.class)) {
                GcInfo lastGc = collector.getLastGcInfo();
                // Each collection once: a phase must not see the last one of the phase before.
                if (lastGc != null
                        && lastGc.getId() != lastGcIds.getOrDefault(collector.getName(), -1L)) {
                    lastGcIds.put(collector.getName(), lastGc.getId());
                    long afterGc = 0;
                    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                        MemoryUsage usage = lastGc.getMemoryUsageAfterGc().get(pool.getName());
                        if (pool.getType() == MemoryType.HEAP && usage != null) {
                            afterGc += usage.getUsed();
                        }
                    }
                    peakAfterGc.accumulateAndGet(afterGc, Math::max);
                }
            }
        }

        /** The peaks since the last call, which start anew: the heap in use, and after a GC. */
        String endPhase() {
            long afterGc = peakAfterGc.getAndSet(0);
            peakAfterGcOfAllPhases = Math.max(peakAfterGcOfAllPhases, afterGc);
            return String.format(
                    "peak in use %d MiB, peak after GC %d MiB",
                    peakUsed.getAndSet(0) >> 20, afterGc >> 20);
        }

        long peakAfterGcOfAllPhases() {
            return peakAfterGcOfAllPhases;
        }

        static String peakResidentMemory() {
            try {
                for (String line :
                        Files.readAllLines(
                                Paths.get("/proc/self/status"), StandardCharsets.UTF_8)) {
                    if (line.startsWith("VmHWM:")) {
                        return line.substring("VmHWM:".length()).trim();
                    }
                }
            } catch (IOException e) {
                // Not on Linux: the heap figures stand alone.
            }
            return "unknown";
        }

        @Override
        public void close() throws InterruptedException {
            sampler.shutdownNow();
            sampler.awaitTermination(10, TimeUnit.SECONDS);
        }
    }
}
