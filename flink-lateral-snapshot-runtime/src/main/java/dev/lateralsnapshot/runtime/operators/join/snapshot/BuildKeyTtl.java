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

import org.apache.flink.annotation.Internal;

/**
 * The state TTL's clocks of the build keys: a key whose clock runs and that nothing accessed for
 * the TTL is evicted through {@link JoinStateContext#evictCurrentKey}. Probe rows that find build
 * rows and build changes access a key, as reads and writes both refresh a key in Flink's state TTL.
 * Clocks run in the join phase only.
 */
@Internal
public interface BuildKeyTtl {

    /**
     * A clock keeps the time of a key's last access only to a window of the TTL divided by this: a
     * key that every probe row touches is written once per window rather than once per row, and is
     * evicted between the TTL and 1.1 times the TTL after its last access, never earlier.
     */
    long ACCESS_PRECISION_DIVISOR = 10;

    /** Whether the current key's clock runs: it was started and has not expired since. */
    boolean isRunning() throws Exception;

    /** Starts the current key's clock as if it was accessed now. */
    void start() throws Exception;

    /** The current key was accessed now; nothing happens when its clock does not run. */
    void touch() throws Exception;

    /** Starts the clock of every key that has build rows: at the flip. */
    void startAll() throws Exception;
}
