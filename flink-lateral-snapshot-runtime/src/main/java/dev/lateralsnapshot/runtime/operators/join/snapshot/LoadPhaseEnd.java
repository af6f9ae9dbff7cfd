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

import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;

import org.slf4j.Logger;

import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Decides when the load phase ends, and says why. Whichever comes first ends it:
 *
 * <ul>
 *   <li>the build watermark reaches the load completed time ({@link Reason#LOAD_COMPLETED_TIME});
 *       the final watermark of a build input that ended ({@link Reason#END_OF_INPUT});
 *   <li>with an idle timeout, the build watermark has not advanced for that long ({@link
 *       BuildIdleClock}, {@link Reason#IDLE_TIMEOUT});
 *   <li>with {@code table.exec.lateral-snapshot.load-completed-on-caught-up}, the end of the build
 *       input's backlog ({@link Reason#BACKLOG_END}): Flink's {@code RecordAttributes} on input 2,
 *       combined over every upstream build subtask, reporting a backlog and then none. Flink
 *       delivers them after every record that came before them, so every build change the backlog
 *       held has arrived when its end does.
 * </ul>
 *
 * <p>Both the reason and whether a backlog was reported are union operator state: the gauge says
 * after a restore how the restored job's load phase ended, and a restore in the load phase after a
 * backlog was reported ends the load phase when the source reports no backlog, even if it does not
 * report one again first. Flink keeps no backlog of its own across a restore: until the source
 * reports again, nothing arrives, and the load phase waits for the other conditions.
 */
final class LoadPhaseEnd {

    /** How the load phase ended: the values of the gauge {@code loadCompletedReason}. */
    enum Reason {
        NOT_YET(0, "it has not"),
        LOAD_COMPLETED_TIME(1, "the build watermark reached the load completed time"),
        IDLE_TIMEOUT(2, "the build watermark did not advance for the idle timeout"),
        BACKLOG_END(3, "the build input's backlog ended"),
        END_OF_INPUT(4, "the build input ended");

        final int code;
        final String description;

        Reason(int code, String description) {
            this.code = code;
            this.description = description;
        }

        static Reason of(long code) {
            for (Reason reason : values()) {
                if (reason.code == code) {
                    return reason;
                }
            }
            return NOT_YET;
        }
    }

    /** Ends the load phase, for a reason. */
    interface Flip {
        void flip(Reason reason) throws Exception;
    }

    private final LateralSnapshotJoinParameters parameters;
    private final UnionLongState reasonState;
    private final UnionLongState backlogState;

    private Reason reason;

    /** Whether the build input reported a backlog, since the job started or before a restore. */
    private boolean backlogReported;

    private BuildIdleClock idleClock;
    private BooleanSupplier joinPhase;
    private LongSupplier buildWatermark;
    private ProcessingTimeService processingTime;
    private Logger log;
    private Flip flip;
    private boolean buildWatermarkCheckScheduled;

    /** Called from the operator's {@code initializeState}, where the operator state is. */
    LoadPhaseEnd(LateralSnapshotJoinParameters parameters, OperatorStateStore operatorState)
            throws Exception {
        this.parameters = parameters;
        this.reasonState =
                new UnionLongState(
                        operatorState, LateralSnapshotJoinStateNames.LOAD_COMPLETED_REASON);
        this.backlogState =
                new UnionLongState(operatorState, LateralSnapshotJoinStateNames.BUILD_BACKLOG);
        this.reason = Reason.of(reasonState.max(Reason.NOT_YET.code));
        this.backlogReported = backlogState.max(0) > 0;
    }

    /** Called from the operator's {@code open}. */
    void open(
            ProcessingTimeService processingTime,
            BooleanSupplier joinPhase,
            LongSupplier buildWatermark,
            Logger log,
            Flip flip) {
        this.processingTime = processingTime;
        this.joinPhase = joinPhase;
        this.buildWatermark = buildWatermark;
        this.log = log;
        this.flip = flip;
        this.idleClock =
                new BuildIdleClock(
                        processingTime,
                        parameters.loadCompletedIdleTimeout(),
                        joinPhase,
                        () -> end(Reason.IDLE_TIMEOUT));
    }

    void snapshot() throws Exception {
        reasonState.update(reason.code);
        backlogState.update(backlogReported ? 1 : 0);
    }

    /** Why the load phase ended, as the log says it. */
    String describe(Reason reason) {
        return reason == Reason.IDLE_TIMEOUT
                ? "the build watermark did not advance for "
                        + parameters.loadCompletedIdleTimeout()
                        + " ms"
                : reason.description;
    }

    /** How the load phase ended; {@link Reason#NOT_YET} while it lasts. */
    Reason reason() {
        return reason;
    }

    /** A build change arrived. */
    void buildRecord() {
        idleClock.start();
        if (buildWatermark.getAsLong() == Long.MIN_VALUE && !buildWatermarkCheckScheduled) {
            buildWatermarkCheckScheduled = true;
            processingTime.registerTimer(
                    processingTime.getCurrentProcessingTime()
                            + LoadPhaseWarnings.MISSING_BUILD_WATERMARK_WARNING_DELAY,
                    time -> warnIfBuildWatermarkIsMissing());
        }
    }

    /** The build input became idle. */
    void buildIdle() {
        if (!joinPhase.getAsBoolean()
                && parameters.loadCompletedIdleTimeout() == 0
                && !idleClock.isStarted()) {
            LoadPhaseWarnings.warnOfBuildSideIdleFromTheStart(log, parameters.loadCompletedTime());
        }
        idleClock.start();
    }

    /** The build watermark advanced to this time in the load phase, its changes applied. */
    void buildWatermark(long watermark) throws Exception {
        if (watermark == Long.MAX_VALUE) {
            end(Reason.END_OF_INPUT);
        } else if (watermark >= parameters.loadCompletedTime()) {
            end(Reason.LOAD_COMPLETED_TIME);
        } else {
            idleClock.restart();
        }
    }

    /** The build input's attributes, combined over its upstream subtasks, in the load phase. */
    void buildRecordAttributes(RecordAttributes attributes) throws Exception {
        if (!parameters.loadCompletedOnCaughtUp()) {
            return;
        }
        if (attributes.isBacklog()) {
            backlogReported = true;
        } else if (backlogReported) {
            end(Reason.BACKLOG_END);
        }
    }

    private void end(Reason reason) throws Exception {
        this.reason = reason;
        flip.flip(reason);
    }

    private void warnIfBuildWatermarkIsMissing() {
        if (buildWatermark.getAsLong() == Long.MIN_VALUE) {
            LoadPhaseWarnings.warnOfMissingBuildWatermark(
                    log, joinPhase.getAsBoolean(), parameters.loadCompletedIdleTimeout());
        }
    }
}
