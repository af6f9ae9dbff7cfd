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

import org.apache.flink.table.functions.ScalarFunction;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fails a job at a moment the test chooses: once {@link #arm armed}, the next row that passes
 * {@link #function()} in any subtask throws, and the trigger disarms itself, so that the restarted
 * job runs on. The job runs in the test's JVM (a MiniCluster), so the function finds its trigger by
 * id in a static registry.
 */
final class FailureTrigger implements AutoCloseable {

    private static final Map<String, FailureTrigger> TRIGGERS = new ConcurrentHashMap<>();

    private final String id = UUID.randomUUID().toString();
    private final AtomicBoolean armed = new AtomicBoolean();
    private final AtomicInteger fired = new AtomicInteger();

    static FailureTrigger open() {
        FailureTrigger trigger = new FailureTrigger();
        TRIGGERS.put(trigger.id, trigger);
        return trigger;
    }

    /** Makes the next row fail its task. */
    void arm() {
        armed.set(true);
    }

    /** How many failures the trigger caused. */
    int fired() {
        return fired.get();
    }

    /** A function that returns its argument, or throws once the trigger is armed. */
    ScalarFunction function() {
        return new PassOrFail(id);
    }

    @Override
    public void close() {
        TRIGGERS.remove(id);
    }

    /** Returns its argument; throws when its trigger is armed. */
    public static final class PassOrFail extends ScalarFunction {
        private static final long serialVersionUID = 1L;

        private final String triggerId;

        PassOrFail(String triggerId) {
            this.triggerId = triggerId;
        }

        public Long eval(Long value) {
            FailureTrigger trigger = TRIGGERS.get(triggerId);
            if (trigger != null && trigger.armed.compareAndSet(true, false)) {
                trigger.fired.incrementAndGet();
                throw new IllegalStateException(
                        "Failure injected by the test at row " + value + ".");
            }
            return value;
        }

        @Override
        public boolean isDeterministic() {
            // Else the planner could evaluate it once, or move it where the test does not expect.
            return false;
        }
    }
}
