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

import com.sun.management.GarbageCollectionNotificationInfo;

import javax.annotation.Nullable;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
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
 * is taken, which costs no collection ({@link Heap#inUse}). Only when that is {@value
 * #LIVE_SHARE_PERCENT} % of the heap or more does it make sure that the objects are live, not
 * garbage that no collection has reached yet: it asks for a full collection ({@link JvmHeap}, which
 * does so rarely), and fails the join when that leaves the heap as full. A heap that full of live
 * objects is one that a growing table is about to exhaust. Where the JVM runs no full collection
 * when asked ({@code -XX:+DisableExplicitGC}, {@code -XX:+ExplicitGCInvokesConcurrent}) nothing is
 * confirmed and the join goes on. {@code HeapLimitTest} tests the decisions; {@code HeapLimitIT} of
 * the end-to-end tests loads a table that does not fit into the TaskManagers of the assembled
 * cluster.
 */
final class HeapLimit {

    /** Rows taken in between two reads of the heap. */
    static final int ROWS_BETWEEN_CHECKS = 4096;

    static final int LIVE_SHARE_PERCENT = 90;

    /** The heap as the join sees it; the JVM's own, or one that a test sets. */
    interface Heap {

        /** The largest the heap may grow to; 0 or less when the JVM does not say. */
        long max();

        /** The bytes taken: live, or garbage that no collection has reached yet. */
        long inUse();

        /** Counts rows that a join took in, which may grow the heap. */
        void tookIn(int rows);

        /**
         * The bytes in use after a full collection: one asked for now, or the last one when another
         * would come too soon; -1 when the JVM ran none.
         */
        long liveAfterFullCollection();
    }

    /** The heap of this JVM, shared by every join in it. */
    static final Heap JVM = new JvmHeap(System::nanoTime, JvmHeap::collectFully);

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
        heap.tookIn(ROWS_BETWEEN_CHECKS);
        long max = heap.max();
        if (max <= 0 || !full(heap.inUse(), max)) {
            return;
        }
        long live = heap.liveAfterFullCollection();
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

    static boolean full(long used, long max) {
        return used * 100 >= max * LIVE_SHARE_PERCENT;
    }

    /**
     * The JVM's heap, and when to ask it for a full collection. The first comes at once. After one
     * that found the heap fuller than the one before, the next comes once the joins have taken in
     * as many rows as would fill half of what is left below the limit, at the bytes per row that
     * the two collections saw: a table that loads fast is caught in a few collections however fast
     * it loads. Otherwise the next comes after a time, which is {@value
     * #MIN_SECONDS_BETWEEN_FULL_COLLECTIONS} s and doubles after each collection that found the
     * heap not fuller than the one before by a fiftieth of it, up to {@value
     * #MAX_SECONDS_BETWEEN_FULL_COLLECTIONS} s: a TaskManager that runs near the limit on purpose,
     * with garbage on top, does not pause for a full collection every second. One that found the
     * heap full is reused for {@value #MIN_SECONDS_BETWEEN_FULL_COLLECTIONS} s at most: the join
     * that failed on it gives its rows back.
     */
    @VisibleForTesting
    static final class JvmHeap implements Heap {

        static final int MIN_SECONDS_BETWEEN_FULL_COLLECTIONS = 1;

        static final int MAX_SECONDS_BETWEEN_FULL_COLLECTIONS = 60;

        private static final long SECOND = 1_000_000_000L;

        /** The JVM's maximum heap ({@code -Xmx}), which does not change while it runs. */
        private static final long MAX =
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax();

        private static final List<MemoryPoolMXBean> POOLS =
                ManagementFactory.getMemoryPoolMXBeans().stream()
                        .filter(pool -> pool.getType() == MemoryType.HEAP)
                        .collect(Collectors.toList());

        private static final Set<String> POOL_NAMES =
                POOLS.stream().map(MemoryPoolMXBean::getName).collect(Collectors.toSet());

        /** How the JVM's collectors announce a collection of the whole heap. */
        private static final Set<String> WHOLE_HEAP_ACTIONS =
                Set.of("end of major GC", "end of GC cycle");

        /** How long to wait for the announcement of a collection that ran. */
        private static final long ANNOUNCEMENT_MILLIS = 1_000;

        private final LongSupplier nanoTime;
        private final LongSupplier fullCollection;
        private final AtomicLong rows = new AtomicLong();
        private boolean collectedOnce;
        private long lastNanos;
        private long lastRows;
        private long lastLive = -1;
        private long secondsToNext = MIN_SECONDS_BETWEEN_FULL_COLLECTIONS;

        /** Rows after the last collection at which the next is due; 0 when only time says. */
        private long rowsToNext;

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
            return MAX;
        }

        /**
         * An old generation (a pool with a usage threshold, in HotSpot's collectors) counts all it
         * holds: what was promoted into it stays until a mixed or full collection, which may not
         * come before the heap is full. A young generation is emptied by every collection, and
         * counts what the last one left in it.
         */
        @Override
        public long inUse() {
            long used = 0;
            for (MemoryPoolMXBean pool : POOLS) {
                MemoryUsage usage =
                        pool.isUsageThresholdSupported()
                                ? pool.getUsage()
                                : pool.getCollectionUsage();
                if (usage != null) {
                    used += usage.getUsed();
                }
            }
            return used;
        }

        @Override
        public void tookIn(int taken) {
            rows.addAndGet(taken);
        }

        /** Synchronized: the subtasks of every join in the JVM share one collection. */
        @Override
        public synchronized long liveAfterFullCollection() {
            long now = nanoTime.getAsLong();
            long rowsNow = rows.get();
            long max = max();
            if (collectedOnce) {
                boolean lastFull = lastLive >= 0 && full(lastLive, max);
                long wait = lastFull ? MIN_SECONDS_BETWEEN_FULL_COLLECTIONS : secondsToNext;
                boolean rowsDue = !lastFull && rowsToNext > 0 && rowsNow - lastRows >= rowsToNext;
                if (now - lastNanos < wait * SECOND && !rowsDue) {
                    return lastLive;
                }
            }
            long live = fullCollection.getAsLong();
            rowsToNext = 0;
            if (collectedOnce && live > lastLive && lastLive >= 0 && rowsNow > lastRows) {
                double bytesPerRow = (double) (live - lastLive) / (rowsNow - lastRows);
                double belowLimit = max / 100.0 * LIVE_SHARE_PERCENT - live;
                if (belowLimit > 0) {
                    rowsToNext =
                            Math.max(ROWS_BETWEEN_CHECKS, (long) (belowLimit / 2 / bytesPerRow));
                }
            }
            boolean grew = live >= 0 && (lastLive < 0 || live - lastLive >= max / 50);
            secondsToNext =
                    !collectedOnce || grew
                            ? MIN_SECONDS_BETWEEN_FULL_COLLECTIONS
                            : Math.min(2 * secondsToNext, MAX_SECONDS_BETWEEN_FULL_COLLECTIONS);
            collectedOnce = true;
            lastNanos = now;
            lastRows = rowsNow;
            lastLive = live;
            return live;
        }

        /**
         * {@code System.gc()}, and the heap in use after it as the JVM announces a collection of
         * the whole heap that it caused; -1 when it ran none. The listener is there only while it
         * waits, so that the JVM keeps no reference to the join's classes.
         */
        @VisibleForTesting
        static long collectFully() {
            Announcement announcement = new Announcement();
            List<NotificationEmitter> emitters =
                    ManagementFactory.getGarbageCollectorMXBeans().stream()
                            .filter(NotificationEmitter.class::isInstance)
                            .map(NotificationEmitter.class::cast)
                            .collect(Collectors.toList());
            for (NotificationEmitter emitter : emitters) {
                emitter.addNotificationListener(announcement, null, null);
            }
            try {
                return announcement.collect();
            } finally {
                for (NotificationEmitter emitter : emitters) {
                    try {
                        emitter.removeNotificationListener(announcement);
                    } catch (Exception e) {
                        // Not registered any more: nothing to remove.
                    }
                }
            }
        }

        private static long collections() {
            long count = 0;
            for (GarbageCollectorMXBean collector :
                    ManagementFactory.getGarbageCollectorMXBeans()) {
                count += Math.max(0, collector.getCollectionCount());
            }
            return count;
        }

        /** Waits for the announcement of the whole-heap collection that {@code System.gc()} ran. */
        private static final class Announcement implements NotificationListener {

            private boolean announced;
            private long used;

            synchronized long collect() {
                long before = collections();
                System.gc();
                if (collections() == before) {
                    // Ignored: no collector ran at all.
                    return -1;
                }
                long deadline = System.nanoTime() + ANNOUNCEMENT_MILLIS * 1_000_000L;
                try {
                    while (!announced) {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            return -1;
                        }
                        wait(Math.max(1, left / 1_000_000L));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return -1;
                }
                return used;
            }

            @Override
            public synchronized void handleNotification(Notification notification, Object ignored) {
                if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
                        notification.getType())) {
                    return;
                }
                GarbageCollectionNotificationInfo info =
                        GarbageCollectionNotificationInfo.from(
                                (CompositeData) notification.getUserData());
                if (!"System.gc()".equals(info.getGcCause())
                        || !WHOLE_HEAP_ACTIONS.contains(info.getGcAction())) {
                    return;
                }
                long after = 0;
                for (Map.Entry<String, MemoryUsage> pool :
                        info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                    if (POOL_NAMES.contains(pool.getKey())) {
                        after += pool.getValue().getUsed();
                    }
                }
                used = after;
                announced = true;
                notifyAll();
            }
        }
    }
}
