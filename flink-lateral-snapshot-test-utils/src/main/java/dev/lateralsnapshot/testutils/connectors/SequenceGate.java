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

package dev.lateralsnapshot.testutils.connectors;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.apache.flink.util.Preconditions.checkArgument;

/**
 * The test's end of a {@code 'test-sequence'} table: the source emits the numbers 1, 2, 3, ... up
 * to the highest number {@link #release released} so far, and replays them from its checkpoint
 * after a failure or a restore, like a log-based source would. The numbers are spread over a fixed
 * number of splits (split {@code s} of {@code n} holds {@code s + 1}, {@code s + 1 + n}, ...), so
 * the source may run with any parallelism and be rescaled.
 *
 * <p>The job runs in the test's JVM (a MiniCluster), so the source finds the gate by its id in a
 * static registry, and reports back how far each split got.
 */
public final class SequenceGate implements AutoCloseable {

    private static final Registry<SequenceGate> GATES = new Registry<>("sequence gate");

    private final String id;
    private final int splits;

    /** Per split, the next number it will emit; moves back when a split restarts from state. */
    private final AtomicLongArray nextOfSplit;

    private long released;
    private CompletableFuture<Void> nextRelease = new CompletableFuture<>();

    private SequenceGate(String id, int splits) {
        this.id = id;
        this.splits = splits;
        this.nextOfSplit = new AtomicLongArray(splits);
        for (int split = 0; split < splits; split++) {
            nextOfSplit.set(split, split + 1);
        }
    }

    /** Opens a gate for a sequence in the given number of splits, with nothing released. */
    public static SequenceGate open(int splits) {
        checkArgument(splits > 0, "The number of splits must be positive.");
        return GATES.register(id -> new SequenceGate(id, splits));
    }

    static SequenceGate get(String id) {
        return GATES.get(id);
    }

    /** The value of the table option {@code 'gate'}. */
    public String id() {
        return id;
    }

    int splits() {
        return splits;
    }

    /** Lets the source emit every number up to this one. */
    public void release(long upTo) {
        CompletableFuture<Void> waiting;
        synchronized (this) {
            checkArgument(upTo >= released, "Released numbers cannot be taken back.");
            released = upTo;
            waiting = nextRelease;
            nextRelease = new CompletableFuture<>();
        }
        waiting.complete(null);
    }

    /** The highest number the source may emit. */
    public synchronized long released() {
        return released;
    }

    /** Completes at the next {@link #release}. */
    synchronized CompletableFuture<Void> nextRelease() {
        return nextRelease;
    }

    /**
     * Whether the source has emitted every released number since it last started. Rows emitted are
     * not yet processed downstream: a checkpoint completed after this holds makes sure.
     */
    public boolean allReleasedEmitted() {
        long upTo = released();
        for (int split = 0; split < splits; split++) {
            if (nextOfSplit.get(split) <= upTo) {
                return false;
            }
        }
        return true;
    }

    void reportNext(int split, long next) {
        nextOfSplit.set(split, next);
    }

    @Override
    public void close() {
        GATES.remove(id);
    }
}
