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

import org.slf4j.Logger;

/**
 * The warnings of a join that may never leave its load phase, with nothing else to show why; the
 * keyed and the broadcast join log them alike, each on its own logger.
 */
final class LoadPhaseWarnings {

    /** How long build rows may arrive without any build watermark before a warning is logged. */
    static final long MISSING_BUILD_WATERMARK_WARNING_DELAY = 60_000L;

    /** The option that ends the load phase at the end of the build input's backlog. */
    static final String LOAD_COMPLETED_ON_CAUGHT_UP_OPTION =
            "table.exec.lateral-snapshot.load-completed-on-caught-up";

    private LoadPhaseWarnings() {}

    /**
     * What ends the load phase besides the build watermark and the idle timeout, for the log line
     * at the start: whether the end of the build input's backlog does, and why not.
     */
    static String endOfBacklog(LateralSnapshotJoinParameters parameters) {
        if (!parameters.loadCompletedOnCaughtUp()) {
            return "The end of the build input's backlog does not end the load phase ('"
                    + LOAD_COMPLETED_ON_CAUGHT_UP_OPTION
                    + "' is false).";
        }
        if (parameters.buildBacklogReported()) {
            return "The load phase also ends when the build input's backlog ends: its source"
                    + " reports a backlog, or is made to report one from the moment a reader"
                    + " publishes the pendingRecords gauge until its readers have caught up. A"
                    + " source that publishes no such gauge, or has nothing to read, reports none,"
                    + " and the other conditions end the load phase.";
        }
        return "The planner found no source of the build input to make report a backlog (it is"
                + " no FLIP-27 source, or is shared with another consumer): unless the source"
                + " reports a backlog itself, the load phase ends by the other conditions, and '"
                + LOAD_COMPLETED_ON_CAUGHT_UP_OPTION
                + "' has no effect.";
    }

    /**
     * Build changes wait for the build watermark, and the load phase ends by it: a build input that
     * sends rows but no watermark (at parallelism above one, a source subtask without splits holds
     * it back) leaves the join loading for good.
     */
    static void warnOfMissingBuildWatermark(
            Logger log, boolean joinPhase, long loadCompletedIdleTimeout) {
        String consequence;
        if (joinPhase) {
            consequence = "the build changes received after the flip are not applied";
        } else if (loadCompletedIdleTimeout > 0) {
            consequence = "no build change is applied until the idle timeout ends the load phase";
        } else {
            consequence = "no build change is applied and the load phase cannot end";
        }
        log.warn(
                "The LATERAL SNAPSHOT join has received build rows for {} s but no build"
                        + " watermark: {}. If a build source subtask has no data (it holds the"
                        + " watermark back), set 'table.exec.source.idle-timeout'; otherwise"
                        + " check the WATERMARK of the build input's on_time column.",
                MISSING_BUILD_WATERMARK_WARNING_DELAY / 1000,
                consequence);
    }

    /**
     * A build side that is idle before it sent anything (an empty table or topic) has no watermark
     * to end the load phase with, and without an idle timeout nothing else ends it: the join waits
     * for a build watermark that reaches the load completed time.
     */
    static void warnOfBuildSideIdleFromTheStart(Logger log, long loadCompletedTime) {
        log.warn(
                "The build input of the LATERAL SNAPSHOT join is idle and has sent no row and"
                        + " no watermark: the load phase ends only when the build watermark"
                        + " reaches the load completed time {}. If the build table is empty,"
                        + " set 'load_completed_idle_timeout' so that an idle build side ends"
                        + " the load phase.",
                loadCompletedTime);
    }
}
