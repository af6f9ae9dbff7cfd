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

import org.HdrHistogram.Histogram;

/**
 * What one sink subtask saw: rows, and the end-to-end latency of every inserted row (source stamp
 * to sink arrival) in one histogram per second of arrival, so that the driver can pick the
 * steady-state window afterwards. Written by the sink's task thread only; the driver reads the
 * published row count while the job runs and the rest after the job has ended.
 */
final class SinkStats {

    /** An hour: a scale run of tens of millions of keys may take longer than twenty minutes. */
    static final int MAX_SECONDS = 3600;

    /** Bucket width of {@link #lastArrivalBySourceTime}. */
    static final long DRAIN_BUCKET_NANOS = 10_000_000L;

    private final long originNanos;
    final Histogram[] latencyBySecond = new Histogram[MAX_SECONDS];

    /** For load-phase runs: per 10 ms of source time, the last arrival of a row stamped in it. */
    final long[] lastArrivalBySourceTime;

    long rows;
    long retractions;
    volatile long published;

    SinkStats(long originNanos, boolean trackDrain) {
        this.originNanos = originNanos;
        this.lastArrivalBySourceTime =
                trackDrain
                        ? new long[(int) (MAX_SECONDS * 1_000_000_000L / DRAIN_BUCKET_NANOS)]
                        : null;
    }

    Histogram histogramOf(int second) {
        int index = Math.min(Math.max(second, 0), MAX_SECONDS - 1);
        Histogram histogram = latencyBySecond[index];
        if (histogram == null) {
            // Microseconds, up to an hour, two significant digits.
            histogram = new Histogram(3_600_000_000L, 2);
            latencyBySecond[index] = histogram;
        }
        return histogram;
    }

    long originNanos() {
        return originNanos;
    }
}
