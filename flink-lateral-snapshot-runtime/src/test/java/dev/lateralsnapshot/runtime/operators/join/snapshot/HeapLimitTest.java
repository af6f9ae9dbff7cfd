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

import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinSpec.Distribution;

import org.apache.flink.util.FlinkRuntimeException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestTemplate;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The join fails with its own message when its rows fill the heap with live objects, and only then:
 * a heap that the last collection left below the limit asks for no full collection, garbage that a
 * full collection frees fails nothing, and neither does a JVM that runs no full collection. Where
 * the rows are kept decides whether the join watches the heap at all.
 */
class HeapLimitTest extends BackendTestBase {

    private static final long KIB = 1 << 10;
    private static final long MIB = 1 << 20;
    private static final long SECOND = 1_000_000_000L;
    private static final String RESIDENCE = "Use RocksDB.";

    @TestTemplate
    void watchesTheHeapWhereTheRowsAreOnItWhateverTheDistribution() throws Exception {
        for (Distribution distribution : Distribution.values()) {
            try (JoinHarness harness = harness(join().distribution(distribution))) {
                harness.open();

                String residence = harness.operator().state().heapResidence();
                if (distribution == Distribution.BROADCAST) {
                    assertThat(residence)
                            .startsWith(
                                    "With 'table.exec.lateral-snapshot.build-distribution' ="
                                            + " 'broadcast' every subtask keeps the whole build"
                                            + " side");
                } else if (backend == Backend.HEAP) {
                    assertThat(residence).startsWith("On the 'hashmap' state backend");
                } else {
                    assertThat(residence).as("rows on disk").isNull();
                }
            }
        }
    }

    @Test
    void failsWhenAFullCollectionLeavesTheHeapFull() {
        FakeHeap heap = new FakeHeap(1000 * MIB, 950 * MIB, 920 * MIB);
        HeapLimit limit = new HeapLimit(heap, RESIDENCE, () -> "load phase, 7 probe rows");

        for (int i = 1; i < HeapLimit.ROWS_BETWEEN_CHECKS; i++) {
            limit.rowTakenIn();
        }
        assertThat(heap.fullCollections).as("read once a batch of rows").isZero();
        assertThatThrownBy(limit::rowTakenIn)
                .isInstanceOf(FlinkRuntimeException.class)
                .hasMessage(
                        "The LATERAL SNAPSHOT join no longer fits in the heap of this TaskManager:"
                                + " 920 MiB of its 1000 MiB heap (92%) are still in use after a"
                                + " full garbage collection, and the join fails at 90% rather"
                                + " than let the JVM run out of heap. This subtask's state: load"
                                + " phase, 7 probe rows. Use RocksDB.");
        assertThat(heap.fullCollections).isOne();
    }

    @Test
    void aHeapBelowTheLimitAsksForNoFullCollection() {
        FakeHeap heap = new FakeHeap(1000 * MIB, 899 * MIB, 999 * MIB);

        takeIn(new HeapLimit(heap, RESIDENCE, () -> ""), 10 * HeapLimit.ROWS_BETWEEN_CHECKS);

        assertThat(heap.fullCollections).isZero();
    }

    @Test
    void garbageThatAFullCollectionFreesFailsNothing() {
        FakeHeap heap = new FakeHeap(1000 * MIB, 990 * MIB, 899 * MIB);

        takeIn(new HeapLimit(heap, RESIDENCE, () -> ""), 3 * HeapLimit.ROWS_BETWEEN_CHECKS);

        assertThat(heap.fullCollections).isEqualTo(3);
    }

    @Test
    void goesOnWhereTheJvmRunsNoFullCollectionOrHasNoMaximum() {
        takeIn(
                new HeapLimit(new FakeHeap(1000 * MIB, 990 * MIB, -1), RESIDENCE, () -> ""),
                2 * HeapLimit.ROWS_BETWEEN_CHECKS);
        takeIn(
                new HeapLimit(new FakeHeap(-1, 990 * MIB, 990 * MIB), RESIDENCE, () -> ""),
                2 * HeapLimit.ROWS_BETWEEN_CHECKS);
    }

    @Test
    void aJoinWithItsRowsOffTheHeapDoesNotWatchIt() {
        FakeHeap heap = new FakeHeap(1000 * MIB, 999 * MIB, 999 * MIB);

        takeIn(new HeapLimit(heap, null, () -> ""), 3 * HeapLimit.ROWS_BETWEEN_CHECKS);

        assertThat(heap.fullCollections).isZero();
    }

    /**
     * The JVM's heap asks for a full collection at once, then not within a second for every join in
     * the JVM, and twice as rarely, up to once a minute, while each finds the heap not fuller than
     * the one before by a fiftieth of it; a heap that grew gets the next after a second again.
     */
    @Test
    void theJvmsHeapAsksForFullCollectionsLessOftenWhileTheHeapDoesNotGrow() {
        ClockedHeap heap = new ClockedHeap(100 * MIB);

        for (int second = 0; second < 200; second++) {
            heap.askAt(second);
        }
        assertThat(heap.collectedAt).containsExactly(0L, 1L, 3L, 7L, 15L, 31L, 63L, 123L, 183L);

        heap.live += heap.fiftieth;
        for (int second = 200; second < 250; second++) {
            heap.askAt(second);
        }
        assertThat(heap.collectedAt).endsWith(183L, 243L, 244L, 246L);
    }

    @Test
    void aCollectionThatFoundTheHeapFullIsReusedForASecondOnly() {
        ClockedHeap heap = new ClockedHeap(0);
        heap.live = heap.max * 95 / 100;
        for (int second = 0; second < 100; second++) {
            heap.askAt(second);
        }
        int before = heap.collectedAt.size();

        assertThat(heap.askAt(100)).isEqualTo(heap.max * 95 / 100);
        heap.live = 100 * MIB;
        assertThat(heap.askAt(100.5)).as("the same collection").isEqualTo(heap.max * 95 / 100);
        assertThat(heap.askAt(101)).as("a new one").isEqualTo(100 * MIB);
        assertThat(heap.collectedAt.subList(before, heap.collectedAt.size()))
                .containsExactly(100L, 101L);
    }

    /**
     * A heap that grows by the rows taken in gets its next full collection once as many rows have
     * come as would fill half of what is left below the limit, before the second is up.
     */
    @Test
    void aGrowingHeapIsCollectedAgainWhenHalfOfWhatIsLeftMayHaveFilled() {
        ClockedHeap heap = new ClockedHeap(100 * MIB);
        heap.askAt(0);
        heap.takeIn(1000);
        heap.askAt(1);
        long half = (heap.max * 9 / 10 - heap.live) / 2 / KIB;
        assertThat(half).isGreaterThan(2 * HeapLimit.ROWS_BETWEEN_CHECKS);

        heap.takeIn((int) (half * 0.99));
        heap.askAt(1.5);
        assertThat(heap.collectedAt).as("not yet").containsExactly(0L, 1L);
        heap.takeIn((int) (half * 0.02));
        heap.askAt(1.5);
        assertThat(heap.collectedAt).containsExactly(0L, 1L, 1L);
    }

    /**
     * The real collection: what it reports includes what is live. Not measured against a collection
     * before: other tests' threads in this JVM may free as much in between.
     */
    @Test
    void aFullCollectionOfTheJvmCountsWhatIsLive() {
        long[] live = new long[8 << 20];
        assertThat(HeapLimit.JvmHeap.collectFully()).isGreaterThanOrEqualTo(64 * MIB);
        assertThat(live).hasSize(8 << 20);
    }

    private static void takeIn(HeapLimit limit, int rows) {
        for (int i = 0; i < rows; i++) {
            limit.rowTakenIn();
        }
    }

    private static final class FakeHeap implements HeapLimit.Heap {

        private final long max;
        private final long inUse;
        private final long liveAfterFullCollection;
        int fullCollections;

        FakeHeap(long max, long inUse, long liveAfterFullCollection) {
            this.max = max;
            this.inUse = inUse;
            this.liveAfterFullCollection = liveAfterFullCollection;
        }

        @Override
        public long max() {
            return max;
        }

        @Override
        public long inUse() {
            return inUse;
        }

        @Override
        public void tookIn(int rows) {}

        @Override
        public long liveAfterFullCollection() {
            fullCollections++;
            return liveAfterFullCollection;
        }
    }

    /** The JVM's heap with a clock and collections of the test's: what is live, when it ran. */
    private static final class ClockedHeap {

        final List<Long> collectedAt = new ArrayList<>();
        final AtomicLong now = new AtomicLong();
        final HeapLimit.JvmHeap heap;
        final long max;
        final long fiftieth;
        long live;

        ClockedHeap(long live) {
            this.live = live;
            this.heap =
                    new HeapLimit.JvmHeap(
                            now::get,
                            () -> {
                                collectedAt.add(now.get() / SECOND);
                                return this.live;
                            });
            this.max = heap.max();
            this.fiftieth = max / 50;
            assertThat(fiftieth).isPositive();
        }

        /** Takes in rows of a kilobyte each, live from then on. */
        void takeIn(int rows) {
            heap.tookIn(rows);
            live += rows * KIB;
        }

        long askAt(double second) {
            now.set(Math.round(second * SECOND));
            return heap.liveAfterFullCollection();
        }
    }
}
