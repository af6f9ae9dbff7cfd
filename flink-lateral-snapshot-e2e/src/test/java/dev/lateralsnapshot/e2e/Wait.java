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

package dev.lateralsnapshot.e2e;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Polling for a condition on a running cluster, with a timeout that names what was awaited. */
final class Wait {

    private static final Duration POLL_INTERVAL = Duration.ofMillis(500);

    private Wait() {}

    static void until(Duration timeout, String what, BooleanSupplier condition) {
        until(timeout, what, condition::getAsBoolean, Boolean::booleanValue);
    }

    /** Polls the value until it matches and returns it; fails with the last value on timeout. */
    static <T> T until(Duration timeout, String what, Supplier<T> value, Predicate<T> matches) {
        return until(timeout, what, value, matches, () -> null);
    }

    /**
     * Polls the value until it matches and returns it. On timeout, fails with the last value and
     * with what {@code context} tells then (unless null): a timeout alone does not say whether the
     * cluster was slow, stuck or broken, the state around it does.
     */
    static <T> T until(
            Duration timeout,
            String what,
            Supplier<T> value,
            Predicate<T> matches,
            Supplier<String> context) {
        long deadline = System.nanoTime() + timeout.toNanos();
        T last;
        while (true) {
            last = value.get();
            if (matches.test(last)) {
                return last;
            }
            if (System.nanoTime() > deadline) {
                String message =
                        "Timed out after " + timeout + " waiting for " + what + "; last: " + last;
                String state = context.get();
                throw new AssertionError(state == null ? message : message + "; " + state);
            }
            sleep(POLL_INTERVAL);
        }
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
