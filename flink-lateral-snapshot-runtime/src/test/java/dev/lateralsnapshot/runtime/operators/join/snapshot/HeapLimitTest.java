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
     * The JVM's heap asks for one full collection in its interval for every join in the JVM, and
     * for them twice as rarely while each finds the heap no fuller than the one before.
     */
    @Test
    void theJvmsHeapAsksForFullCollectionsLessOftenWhileTheHeapDoesNotGrow() {
        AtomicLong now = new AtomicLong(1);
        AtomicLong used = new AtomicLong(100 * MIB);
        List<Long> collectedAt = new ArrayList<>();
        HeapLimit.JvmHeap heap =
                new HeapLimit.JvmHeap(
                        now::get,
                        () -> {
                            collectedAt.add(now.get() / SECOND);
                            return used.get();
                        });
        long step = heap.max() / 50;
        assertThat(step).as("a fiftieth of the heap").isPositive();

        for (int second = 0; second < 400; second++) {
            now.set(1 + second * SECOND);
            heap.usedAfterFullCollection();
        }
        // 30 s, then 60, 120 and 240 while nothing grows.
        assertThat(collectedAt).containsExactly(0L, 30L, 90L, 210L);

        used.addAndGet(step);
        now.set(1 + 450 * SECOND);
        assertThat(heap.usedAfterFullCollection()).isEqualTo(100 * MIB + step);
        now.set(1 + 479 * SECOND);
        assertThat(heap.usedAfterFullCollection())
                .as("the same collection")
                .isEqualTo(100 * MIB + step);
        now.set(1 + 480 * SECOND);
        heap.usedAfterFullCollection();
        assertThat(collectedAt).as("back to 30 s once it grew").endsWith(450L, 480L);
    }

    /** The real collection: what it reports includes what is live, and nothing of what is not. */
    @Test
    void aFullCollectionOfTheJvmCountsWhatIsLive() {
        long before = HeapLimit.JvmHeap.collectFully();
        assertThat(before).isPositive();

        long[] live = new long[8 << 20];
        assertThat(HeapLimit.JvmHeap.collectFully()).isGreaterThan(before + 48 * MIB);
        assertThat(live).hasSize(8 << 20);
    }

    private static void takeIn(HeapLimit limit, int rows) {
        for (int i = 0; i < rows; i++) {
            limit.rowTakenIn();
        }
    }

    private static final class FakeHeap implements HeapLimit.Heap {

        private final long max;
        private final long usedAfterLastCollection;
        private final long usedAfterFullCollection;
        int fullCollections;

        FakeHeap(long max, long usedAfterLastCollection, long usedAfterFullCollection) {
            this.max = max;
            this.usedAfterLastCollection = usedAfterLastCollection;
            this.usedAfterFullCollection = usedAfterFullCollection;
        }

        @Override
        public long max() {
            return max;
        }

        @Override
        public long usedAfterLastCollection() {
            return usedAfterLastCollection;
        }

        @Override
        public long usedAfterFullCollection() {
            fullCollections++;
            return usedAfterFullCollection;
        }
    }
}
