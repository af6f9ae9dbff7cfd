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

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/** Waits for a condition of a running job, failing with what was awaited and what was seen. */
public final class Await {

    /** Long enough for a slow CI machine, short enough that a broken test fails soon. */
    public static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static final long POLL_MILLIS = 50;

    private Await() {}

    /** Waits until the condition holds; {@code state} describes what was seen when it fails. */
    public static void until(String awaited, Callable<Boolean> condition, Supplier<?> state)
            throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.call()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "Timed out after "
                                + TIMEOUT
                                + " waiting until "
                                + awaited
                                + ". Seen: "
                                + state.get());
            }
            Thread.sleep(POLL_MILLIS);
        }
    }
}
