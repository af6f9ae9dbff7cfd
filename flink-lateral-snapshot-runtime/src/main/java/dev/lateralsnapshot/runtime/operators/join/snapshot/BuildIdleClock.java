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

import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;

import java.util.function.BooleanSupplier;

/**
 * The clock of {@code load_completed_idle_timeout}: the processing time since which the build
 * watermark has not advanced, and the timer that ends the load phase once that has lasted the
 * timeout. It starts with the first build record, watermark or idle status, and every advance of
 * the build watermark restarts it. Upstream Flink's join starts it the same way; starting it only
 * with a watermark left an empty build side, which never sends one, loading for good
 * (BadInputITCase).
 */
final class BuildIdleClock {

    /** Ends the load phase once the build watermark has not advanced for the timeout. */
    interface Elapsed {
        void run() throws Exception;
    }

    private final ProcessingTimeService processingTime;

    /** Millis; 0 for none, when the clock only tells whether the build side sent anything. */
    private final long timeout;

    private final BooleanSupplier joinPhase;
    private final Elapsed elapsed;

    /** Processing time of the last start; Long.MIN_VALUE before the first. */
    private long idleSince = Long.MIN_VALUE;

    private boolean checkScheduled;

    BuildIdleClock(
            ProcessingTimeService processingTime,
            long timeout,
            BooleanSupplier joinPhase,
            Elapsed elapsed) {
        this.processingTime = processingTime;
        this.timeout = timeout;
        this.joinPhase = joinPhase;
        this.elapsed = elapsed;
    }

    /** Whether the build side has sent a record, a watermark or an idle status. */
    boolean isStarted() {
        return idleSince != Long.MIN_VALUE;
    }

    /** A build record, watermark or idle status: the clock starts with the first. */
    void start() {
        if (!isStarted()) {
            restart();
        }
    }

    /** The build watermark advanced. */
    void restart() {
        idleSince = processingTime.getCurrentProcessingTime();
        if (!joinPhase.getAsBoolean() && timeout > 0 && !checkScheduled) {
            scheduleCheck(idleSince + timeout);
        }
    }

    private void scheduleCheck(long time) {
        checkScheduled = true;
        processingTime.registerTimer(time, this::check);
    }

    private void check(long now) throws Exception {
        checkScheduled = false;
        if (joinPhase.getAsBoolean()) {
            return;
        }
        long due = idleSince + timeout;
        if (now >= due) {
            elapsed.run();
        } else {
            scheduleCheck(due);
        }
    }
}
