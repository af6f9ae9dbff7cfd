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

package dev.lateralsnapshot.tests.runtime;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Emits one order after the other in the background, like the datagen of the reference's orders
 * (docs/lateral-snapshot-join.md, "Syntax"), while the test changes the build side: the orders that
 * meet the change are the ones timing decides.
 */
final class OrderEmitter implements AutoCloseable {

    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    private final AtomicLong lastId;

    /** Starts emitting order ids from {@code firstId} on, one per period. */
    OrderEmitter(StreamingScenario scenario, long firstId, long periodMillis) {
        lastId = new AtomicLong(firstId - 1);
        executor.scheduleAtFixedRate(
                () -> {
                    long id = lastId.get() + 1;
                    scenario.emitOrders(id, id);
                    lastId.set(id);
                },
                0,
                periodMillis,
                TimeUnit.MILLISECONDS);
    }

    /** Stops emitting and returns the id of the last order emitted. */
    long stop() throws InterruptedException {
        executor.shutdownNow();
        if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("The order emitter did not stop.");
        }
        return lastId.get();
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
