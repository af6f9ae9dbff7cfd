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

package dev.lateralsnapshot.runtime.operators.join.snapshot;

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.util.FlinkRuntimeException;

import javax.annotation.Nullable;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Fails the join with a message that says what to change when the rows it keeps on the heap no
 * longer fit there, before the JVM runs out of heap: a TaskManager whose heap fills up collects
 * garbage until its heartbeats time out, or throws an {@code OutOfMemoryError} in any of its
 * threads, and neither says anything of the join.
 *
 * <p>Every {@value #ROWS_BETWEEN_CHECKS} rows that the join takes in, it reads how much of the heap
 * the last garbage collection left in use (the JVM keeps that figure per memory pool; reading it
 * costs no collection). Only when that is {@value #LIVE_SHARE_PERCENT} % of the heap or more does
 * it make sure that the objects are live and not garbage that a young collection left behind: it
 * asks for a full collection, at most once in {@value #SECONDS_BETWEEN_FULL_COLLECTIONS} s for the
 * whole JVM (less often while the heap does not grow, see {@link JvmHeap}), and fails the join when
 * that leaves the heap as full. A heap that full of live objects is one that a growing table is
 * about to exhaust. Where the JVM ignores the request ({@code -XX:+DisableExplicitGC}) nothing is
 * confirmed and the join goes on. {@code HeapLimitTest} tests the decisions; {@code HeapLimitIT} of
 * the end-to-end tests loads a table that does not fit into the TaskManagers of the assembled
 * cluster.
 */
final class HeapLimit {

    /** Rows taken in between two reads of the heap. */
    static final int ROWS_BETWEEN_CHECKS = 4096;

    static final int LIVE_SHARE_PERCENT = 90;

    static final int SECONDS_BETWEEN_FULL_COLLECTIONS = 30;

    /** The heap as the join sees it; the JVM's own, or one that a test sets. */
    interface Heap {

        /** The largest the heap may grow to; 0 or less when the JVM does not say. */
        long max();

        /** The bytes in use right after the last garbage collection. */
        long usedAfterLastCollection();

        /**
         * The bytes in use after a full collection: one asked for now, or the last one when it was
         * asked for too recently; -1 when the JVM ran none.
         */
        long usedAfterFullCollection();
    }

    /** The heap of this JVM, shared by every join in it. */
    static final Heap JVM = new JvmHeap();

    private final Heap heap;
    @Nullable private final String residence;
    private final Supplier<String> subtask;
    private int rowsToNextCheck = ROWS_BETWEEN_CHECKS;

    /**
     * @param residence what keeps the join's rows on the heap and how to move them off it, from
     *     {@link JoinState#heapResidence()}; null where the rows are not on the heap, which leaves
     *     the heap unwatched
     * @param subtask what this subtask of the join holds, for the message
     */
    HeapLimit(Heap heap, @Nullable String residence, Supplier<String> subtask) {
        this.heap = heap;
        this.residence = residence;
        this.subtask = subtask;
    }

    /**
     * Called for every row the join takes in; fails, once in {@link #ROWS_BETWEEN_CHECKS} calls,
     * when the heap is full of live objects.
     */
    void rowTakenIn() {
        if (residence == null || --rowsToNextCheck > 0) {
            return;
        }
        rowsToNextCheck = ROWS_BETWEEN_CHECKS;
        long max = heap.max();
        if (max <= 0 || !full(heap.usedAfterLastCollection(), max)) {
            return;
        }
        long live = heap.usedAfterFullCollection();
        if (live < 0 || !full(live, max)) {
            return;
        }
        throw new FlinkRuntimeException(
                String.format(
                        Locale.ROOT,
                        "The LATERAL SNAPSHOT join no longer fits in the heap of this TaskManager:"
                                + " %d MiB of its %d MiB heap (%d%%) are still in use after a full"
                                + " garbage collection, and the join fails at %d%% rather than"
                                + " let the JVM run out of heap. This subtask's state: %s. %s",
                        live >> 20,
                        max >> 20,
                        Math.round(100.0 * live / max),
                        LIVE_SHARE_PERCENT,
                        subtask.get(),
                        residence));
    }

    private static boolean full(long used, long max) {
        return used * 100 >= max * LIVE_SHARE_PERCENT;
    }

    /**
     * The JVM's heap: its pools' usage after collection, and {@code System.gc()} to confirm. A heap
     * that a full collection found below the limit and that has not grown since by a fiftieth of
     * its size gets its next full collection twice as late, up to {@value
     * #MAX_SECONDS_BETWEEN_FULL_COLLECTIONS} s: a TaskManager that runs near the limit on purpose,
     * with garbage on top that young collections leave, is not made to pause for a full collection
     * every {@value #SECONDS_BETWEEN_FULL_COLLECTIONS} s.
     */
    @VisibleForTesting
    static final class JvmHeap implements Heap {

        static final int MAX_SECONDS_BETWEEN_FULL_COLLECTIONS =
                16 * SECONDS_BETWEEN_FULL_COLLECTIONS;

        private static final List<MemoryPoolMXBean> POOLS =
                ManagementFactory.getMemoryPoolMXBeans().stream()
                        .filter(pool -> pool.getType() == MemoryType.HEAP)
                        .filter(MemoryPoolMXBean::isCollectionUsageThresholdSupported)
                        .collect(Collectors.toList());

        private final LongSupplier nanoTime;
        private final LongSupplier fullCollection;
        private long lastFullCollectionNanos;
        private long usedAfterFullCollection = -1;
        private boolean collectedOnce;
        private long secondsToNextFullCollection = SECONDS_BETWEEN_FULL_COLLECTIONS;

        JvmHeap() {
            this(System::nanoTime, JvmHeap::collectFully);
        }

        /**
         * @param fullCollection runs a full collection and returns the bytes in use after it, -1
         *     when none ran
         */
        JvmHeap(LongSupplier nanoTime, LongSupplier fullCollection) {
            this.nanoTime = nanoTime;
            this.fullCollection = fullCollection;
        }

        @Override
        public long max() {
            return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax();
        }

        @Override
        public long usedAfterLastCollection() {
            return inUseAfterCollection();
        }

        /** Synchronized: the subtasks of every join in the JVM share one collection. */
        @Override
        public synchronized long usedAfterFullCollection() {
            long now = nanoTime.getAsLong();
            if (collectedOnce
                    && now - lastFullCollectionNanos
                            < secondsToNextFullCollection * 1_000_000_000L) {
                return usedAfterFullCollection;
            }
            long used = fullCollection.getAsLong();
            boolean grew =
                    !collectedOnce
                            || used < 0
                            || usedAfterFullCollection < 0
                            || used - usedAfterFullCollection >= max() / 50;
            secondsToNextFullCollection =
                    grew
                            ? SECONDS_BETWEEN_FULL_COLLECTIONS
                            : Math.min(
                                    2 * secondsToNextFullCollection,
                                    MAX_SECONDS_BETWEEN_FULL_COLLECTIONS);
            usedAfterFullCollection = used;
            lastFullCollectionNanos = now;
            collectedOnce = true;
            return used;
        }

        /** {@code System.gc()}, and the heap in use after it; -1 when the JVM ran no collection. */
        @VisibleForTesting
        static long collectFully() {
            long before = collections();
            System.gc();
            return collections() == before ? -1 : inUseAfterCollection();
        }

        private static long inUseAfterCollection() {
            long used = 0;
            for (MemoryPoolMXBean pool : POOLS) {
                MemoryUsage usage = pool.getCollectionUsage();
                if (usage != null) {
                    used += usage.getUsed();
                }
            }
            return used;
        }

        private static long collections() {
            long count = 0;
            for (GarbageCollectorMXBean collector :
                    ManagementFactory.getGarbageCollectorMXBeans()) {
                count += Math.max(0, collector.getCollectionCount());
            }
            return count;
        }
    }
}
