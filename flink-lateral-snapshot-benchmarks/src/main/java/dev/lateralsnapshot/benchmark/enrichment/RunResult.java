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

package dev.lateralsnapshot.benchmark.enrichment;

/** What one run measured. Rates in probe rows per second, latencies in microseconds. */
final class RunResult {

    final RunSpec spec;
    String error;

    long probeRows;
    double measuredSeconds;

    /** Probe rows per second over the steady window (after the warm-up). */
    double rate = Double.NaN;

    /**
     * Probe rows joined per second over the same window, from the rows that reached the sink: lower
     * than {@link #rate} when the join falls behind its sources (a LATERAL SNAPSHOT join keeps
     * taking probe rows into its buffer while they wait for the build watermark).
     */
    double joinedRate = Double.NaN;

    double rateFirstHalf = Double.NaN;
    double rateSecondHalf = Double.NaN;

    /** The run stopped at its time limit before 10M probe rows. */
    boolean timeBounded;

    long sinkRows;
    long sinkRetractions;

    long latencyCount;
    double p50 = Double.NaN;
    double p99 = Double.NaN;
    double p999 = Double.NaN;
    double maxLatency = Double.NaN;

    long stateSizeBytes = -1;
    long checkpointsCompleted;
    long checkpointsFailed;
    String checkpointFailure;
    long peakHeapUsed;
    long peakHeapAfterGc;

    // ---- load-phase runs ----
    long bufferedAtFlip = -1;
    double loadPhaseSeconds = Double.NaN;
    long loadCheckpointsCompleted = -1;
    long loadCheckpointsFailed = -1;
    double drainMillis = Double.NaN;
    double drainRate = Double.NaN;

    /** Checkpoints that completed between the flip and the last buffered row at the sink. */
    long drainCheckpointsCompleted = -1;

    /** What the checkpoints completed in the load phase wrote, together. */
    long loadCheckpointedBytes = -1;

    /** The join's gauge {@code loadPhaseDurationMs}, the longest of its subtasks. */
    long loadPhaseGaugeMillis = -1;

    /** The join's gauge {@code loadCompletedReason}; -1 when its subtasks differ. */
    long loadCompletedReason = -1;

    // ---- scale runs ----
    /** From the job's submission to the arrival of its last joined row at the sink. */
    double lastRowSeconds = Double.NaN;

    /**
     * Build rows per second while the build sources emitted their snapshot, first row to last:
     * under backpressure, the rate at which the job took them in.
     */
    double buildRowsPerSecond = Double.NaN;

    /** RocksDB's files on disk once the last joined row is out; -1 on the heap. */
    long localStateBytes = -1;

    /** Checkpoints completed before the last joined row, what they wrote, the longest of them. */
    long scaleCheckpointsCompleted = -1;

    long scaleCheckpointedBytes = -1;
    long scaleCheckpointMaxMillis = -1;

    /**
     * Seconds from submitting the same job again, restored from the checkpoint taken after the last
     * joined row, until every subtask of its join has opened on the restored state; -1 when not
     * measured (only the LATERAL SNAPSHOT contenders of the scale group are).
     */
    double restoreSeconds = -1;

    // ---- LATERAL SNAPSHOT runs ----
    /** The subtasks of the join that joined probe rows; 0 when not measured. */
    int joinSubtasks;

    /** The largest share of the probe rows that one join subtask joined over the whole run. */
    double maxJoinShare = Double.NaN;

    RunResult(RunSpec spec) {
        this.spec = spec;
    }

    boolean ok() {
        return error == null;
    }

    static String csvHeader() {
        return "scenario,mode,contender,backend,round,error,probe_rows,measured_s,rate,"
                + "rate_first_half,rate_second_half,time_bounded,sink_rows,sink_retractions,"
                + "latency_count,p50_us,p99_us,p999_us,max_us,state_bytes,checkpoints_completed,"
                + "checkpoints_failed,peak_heap_used,peak_heap_after_gc,buffered_at_flip,"
                + "load_phase_s,load_checkpoints_completed,load_checkpoints_failed,drain_ms,"
                + "drain_rate,checkpoint_failure,drain_checkpoints_completed,parallelism,"
                + "join_subtasks,max_join_share,joined_rate,interval_during_backlog_s,"
                + "load_checkpointed_bytes,load_phase_gauge_ms,load_completed_reason,"
                + "last_row_s,build_rows_per_s,local_state_bytes,scale_checkpoints_completed,"
                + "scale_checkpointed_bytes,scale_checkpoint_max_ms,restore_s";
    }

    String csv() {
        return String.join(
                ",",
                spec.scenario.name,
                spec.mode.name(),
                spec.contender.name(),
                spec.backend.name(),
                String.valueOf(spec.round),
                error == null ? "" : '"' + error.replace('"', '\'').replace('\n', ' ') + '"',
                String.valueOf(probeRows),
                String.valueOf(measuredSeconds),
                String.valueOf(rate),
                String.valueOf(rateFirstHalf),
                String.valueOf(rateSecondHalf),
                String.valueOf(timeBounded),
                String.valueOf(sinkRows),
                String.valueOf(sinkRetractions),
                String.valueOf(latencyCount),
                String.valueOf(p50),
                String.valueOf(p99),
                String.valueOf(p999),
                String.valueOf(maxLatency),
                String.valueOf(stateSizeBytes),
                String.valueOf(checkpointsCompleted),
                String.valueOf(checkpointsFailed),
                String.valueOf(peakHeapUsed),
                String.valueOf(peakHeapAfterGc),
                String.valueOf(bufferedAtFlip),
                String.valueOf(loadPhaseSeconds),
                String.valueOf(loadCheckpointsCompleted),
                String.valueOf(loadCheckpointsFailed),
                String.valueOf(drainMillis),
                String.valueOf(drainRate),
                checkpointFailure == null
                        ? ""
                        : '"' + checkpointFailure.replace('"', '\'').replace('\n', ' ') + '"',
                String.valueOf(drainCheckpointsCompleted),
                String.valueOf(spec.parallelism),
                String.valueOf(joinSubtasks),
                String.valueOf(maxJoinShare),
                String.valueOf(joinedRate),
                String.valueOf(spec.intervalDuringBacklogSeconds),
                String.valueOf(loadCheckpointedBytes),
                String.valueOf(loadPhaseGaugeMillis),
                String.valueOf(loadCompletedReason),
                String.valueOf(lastRowSeconds),
                String.valueOf(buildRowsPerSecond),
                String.valueOf(localStateBytes),
                String.valueOf(scaleCheckpointsCompleted),
                String.valueOf(scaleCheckpointedBytes),
                String.valueOf(scaleCheckpointMaxMillis),
                String.valueOf(restoreSeconds));
    }

    @Override
    public String toString() {
        if (!ok()) {
            return spec.label() + " FAILED: " + error;
        }
        StringBuilder s =
                new StringBuilder(
                        String.format(
                                "%-44s %8.3fM rows/s (halves %.3fM/%.3fM%s) p50 %s p99 %s"
                                        + " state %s heap %s/%s cps %d/%d",
                                spec.label(),
                                rate / 1e6,
                                rateFirstHalf / 1e6,
                                rateSecondHalf / 1e6,
                                timeBounded ? ", time-bounded" : "",
                                Format.millis(p50),
                                Format.millis(p99),
                                Format.bytes(stateSizeBytes),
                                Format.bytes(peakHeapAfterGc),
                                Format.bytes(peakHeapUsed),
                                checkpointsCompleted,
                                checkpointsFailed));
        if (checkpointFailure != null) {
            s.append(" [").append(checkpointFailure).append(']');
        }
        if (joinSubtasks > 0) {
            s.append(
                    String.format(
                            " | joined %.3fM rows/s on %d subtasks, largest share %.1f%%,"
                                    + " sink/probe rows %.3f",
                            joinedRate / 1e6,
                            joinSubtasks,
                            maxJoinShare * 100,
                            (double) sinkRows / probeRows));
        }
        if (spec.mode == RunSpec.Mode.SCALE) {
            s.append(
                    String.format(
                            " | last joined row at %.1f s, build %.0f rows/s, on disk %s,"
                                    + " %d checkpoints before it (%s, longest %d ms)",
                            lastRowSeconds,
                            buildRowsPerSecond,
                            Format.bytes(localStateBytes),
                            scaleCheckpointsCompleted,
                            Format.bytes(scaleCheckpointedBytes),
                            scaleCheckpointMaxMillis));
            if (restoreSeconds >= 0) {
                s.append(String.format(", restored in %.1f s", restoreSeconds));
            }
        }
        if (spec.flips()) {
            s.append(
                    String.format(
                            " | load %.1f s, buffered %d, checkpoints in load %d ok/%d failed,"
                                    + " drain %.0f ms (%.3fM rows/s), checkpoints in drain %d",
                            loadPhaseSeconds,
                            bufferedAtFlip,
                            loadCheckpointsCompleted,
                            loadCheckpointsFailed,
                            drainMillis,
                            drainRate / 1e6,
                            drainCheckpointsCompleted));
            s.append(
                    String.format(
                            " | load phase %d ms by its gauge, reason %d, %s written by its"
                                    + " checkpoints",
                            loadPhaseGaugeMillis,
                            loadCompletedReason,
                            Format.bytes(loadCheckpointedBytes)));
        }
        return s.toString();
    }
}
