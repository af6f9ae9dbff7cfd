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

import dev.lateralsnapshot.testutils.metrics.JoinMetrics;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.lateralsnapshot.tests.reliability.ControlledJob.insert;
import static dev.lateralsnapshot.tests.reliability.ControlledJob.updateAfter;
import static dev.lateralsnapshot.tests.reliability.ControlledJob.updateBefore;
import static dev.lateralsnapshot.tests.reliability.SavepointJob.watermarkAfter;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_PROBE_SIDE_RECORDS_BUFFERED;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_PROBE_RECORDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two phases a savepoint of {@link SavepointJob} is taken in: what the job holds then ({@link
 * #fill}), what a job restored from it must do before any new build change ({@link
 * #continueAfterRestore}) and after the changes that complete the story ({@link #finish}).
 *
 * <p>Both savepoints hold every kind of state the join keeps: loaded build rows, pending build
 * changes (the build watermark lags one hour behind the rows), an update pair waiting for its time,
 * a -U whose +U comes only after the restore, the TTL clocks of the join phase, and, in the load
 * phase, buffered probe rows. If any of it is lost or misread after a restore, the output shows it:
 * a lost probe buffer loses orders, lost pending changes leave old rates, a lost -U leaves two B
 * rates and so two rows per B order.
 *
 * <p>The orders of the probe side cycle through the currencies B, C, A with their id.
 */
enum SavepointPhase {

    /**
     * Loading: A and B loaded, C and an update of A pending, a -U of B held, orders 1 to 6
     * buffered. After the restore the join still loads; at the flip every order, from before the
     * savepoint and after, comes out with the rates of the complete build side.
     */
    LOAD {
        @Override
        void fill(ControlledJob job) throws Exception {
            job.emitBuild(
                    insert("A", 1.0, day1(10, 0)),
                    insert("B", 2.0, day1(10, 0)),
                    insert("Z", 0.0, day1(12, 0)));
            job.awaitBuildWatermark(watermarkAfter(day1(12, 0)));
            job.emitBuild(
                    updateBefore("A", 1.0, day1(10, 0)),
                    updateAfter("A", 1.5, day1(11, 30)),
                    insert("C", 3.0, day1(11, 20)),
                    updateBefore("B", 2.0, day1(10, 0)));
            job.emitOrders(1, ORDERS_BEFORE_SAVEPOINT);
            job.awaitAllRowsRead();
            assertThat(job.metrics().longs(CURRENT_PHASE).values()).containsOnly(0L);
            assertThat(job.output()).isEmpty();
        }

        @Override
        void continueAfterRestore(ControlledJob job, long firstOrder, long lastOrder)
                throws Exception {
            // Metrics start from zero: only the orders since this restore count as buffered.
            job.emitOrders(firstOrder, lastOrder);
            job.awaitAllRowsRead();
            // Flink counts a record in numRecordsIn before the operator takes it, so the gauge
            // may lag behind awaitAllRowsRead() for a moment.
            JoinMetrics metrics =
                    job.job()
                            .awaitMetrics(
                                    "the orders since the restore are buffered",
                                    m ->
                                            m.sum(NUM_PROBE_SIDE_RECORDS_BUFFERED)
                                                    == lastOrder - firstOrder + 1);
            assertThat(metrics.longs(CURRENT_PHASE).values()).containsOnly(0L);
            assertThat(metrics.longs(CURRENT_BUILD_SIDE_WATERMARK).values())
                    .containsOnly(Long.MIN_VALUE);
            assertThat(job.output()).isEmpty();
        }

        @Override
        void finish(ControlledJob job, long lastOrder) throws Exception {
            // The +U of B completes the held -U; Z moves the build watermark past the load
            // completed time, and the join flips.
            job.emitBuild(
                    updateAfter("B", 2.5, day1(11, 45)),
                    insert("Z", 0.0, SavepointJob.LOAD_COMPLETED_TIME.plusHours(1)));
            job.job().awaitMetrics("every subtask flips", m -> m.allEqual(CURRENT_PHASE, 1));
            assertThat(job.awaitOutput((int) lastOrder))
                    .containsExactlyInAnyOrderElementsOf(
                            enriched(1, lastOrder, Map.of("A", "1.5", "B", "2.5", "C", "3.0")));
            long next = lastOrder + 1;
            job.emitOrders(next, next + 2);
            assertThat(job.awaitOutput((int) next + 2).subList((int) lastOrder, (int) next + 2))
                    .containsExactlyInAnyOrderElementsOf(
                            enriched(next, next + 2, Map.of("A", "1.5", "B", "2.5", "C", "3.0")));
        }
    },

    /**
     * Joining: A and B loaded, orders 1 to 6 joined, C and an update of A pending, a -U of B held.
     * After the restore the join joins at once with the restored rates; the pending changes apply
     * once the build watermark passes them.
     */
    JOIN {
        @Override
        void fill(ControlledJob job) throws Exception {
            job.emitBuild(
                    insert("A", 1.0, day1(10, 0)),
                    insert("B", 2.0, day1(10, 0)),
                    insert("Z", 0.0, day2(2, 0)));
            job.job().awaitMetrics("every subtask flips", m -> m.allEqual(CURRENT_PHASE, 1));
            job.emitOrders(1, ORDERS_BEFORE_SAVEPOINT);
            assertThat(job.awaitOutput(ORDERS_BEFORE_SAVEPOINT))
                    .containsExactlyInAnyOrderElementsOf(
                            enriched(1, ORDERS_BEFORE_SAVEPOINT, OLD_RATES));
            job.emitBuild(
                    updateBefore("A", 1.0, day1(10, 0)),
                    updateAfter("A", 1.5, day2(2, 30)),
                    insert("C", 3.0, day2(2, 30)),
                    updateBefore("B", 2.0, day1(10, 0)));
            job.awaitAllRowsRead();
        }

        @Override
        void continueAfterRestore(ControlledJob job, long firstOrder, long lastOrder)
                throws Exception {
            // In the join phase at once, before any build row: nothing waits for a watermark.
            JoinMetrics metrics = job.metrics();
            assertThat(metrics.longs(CURRENT_PHASE).values()).containsOnly(1L);
            assertThat(metrics.longs(CURRENT_BUILD_SIDE_WATERMARK).values())
                    .containsOnly(Long.MIN_VALUE);
            int before = job.output().size();
            job.emitOrders(firstOrder, lastOrder);
            List<String> output = job.awaitOutput(before + (int) (lastOrder - firstOrder + 1));
            assertThat(output.subList(before, output.size()))
                    .containsExactlyInAnyOrderElementsOf(
                            enriched(firstOrder, lastOrder, OLD_RATES));
            // Metrics start from zero: only this restore's C orders are unmatched.
            job.job()
                    .awaitMetrics(
                            "the unmatched orders since the restore are counted",
                            m ->
                                    m.sum(NUM_UNMATCHED_PROBE_RECORDS)
                                            == countC(firstOrder, lastOrder));
        }

        @Override
        void finish(ControlledJob job, long lastOrder) throws Exception {
            job.emitBuild(updateAfter("B", 2.5, day2(2, 45)), insert("Z", 0.0, day2(4, 0)));
            job.awaitBuildWatermark(watermarkAfter(day2(4, 0)));
            int before = job.output().size();
            long next = lastOrder + 1;
            job.emitOrders(next, next + 2);
            List<String> output = job.awaitOutput(before + 3);
            assertThat(output.subList(before, output.size()))
                    .containsExactlyInAnyOrderElementsOf(
                            enriched(next, next + 2, Map.of("A", "1.5", "B", "2.5", "C", "3.0")));
        }
    };

    /** The orders the job has seen when its savepoint is taken. */
    static final int ORDERS_BEFORE_SAVEPOINT = 6;

    private static final Map<String, String> OLD_RATES =
            Map.of("A", "1.0", "B", "2.0", "C", "null");

    /** Brings a fresh job into the state its savepoint holds, and checks what it emitted so far. */
    abstract void fill(ControlledJob job) throws Exception;

    /**
     * Checks a job right after its restore, and that it handles orders {@code firstOrder} to {@code
     * lastOrder} as the phase demands, before any new build change.
     */
    abstract void continueAfterRestore(ControlledJob job, long firstOrder, long lastOrder)
            throws Exception;

    /**
     * Sends the build changes that complete the story, and checks every order emitted since the
     * last restore, and some more; {@code lastOrder} is the last order emitted so far.
     */
    abstract void finish(ControlledJob job, long lastOrder) throws Exception;

    /**
     * Checks a job restored from a savepoint that {@link #fill} took: three more orders, then the
     * build changes that complete the story.
     */
    void checkRestored(ControlledJob job) throws Exception {
        long firstOrder = ORDERS_BEFORE_SAVEPOINT + 1;
        long lastOrder = ORDERS_BEFORE_SAVEPOINT + 3;
        continueAfterRestore(job, firstOrder, lastOrder);
        finish(job, lastOrder);
    }

    /** The directory name of this phase's savepoint on a state backend. */
    String savepointName(String backend) {
        return backend + "-" + name().toLowerCase() + "-phase";
    }

    static LocalDateTime day1(int hour, int minute) {
        return LocalDateTime.of(2026, 1, 1, hour, minute);
    }

    static LocalDateTime day2(int hour, int minute) {
        return LocalDateTime.of(2026, 1, 2, hour, minute);
    }

    /** The output rows of orders with their currency's rate ("null" when none matches). */
    static List<String> enriched(long firstOrder, long lastOrder, Map<String, String> rates) {
        List<String> rows = new ArrayList<>();
        for (long order = firstOrder; order <= lastOrder; order++) {
            String currency = currency(order);
            rows.add("+I[" + order + ", " + currency + ", " + rates.get(currency) + "]");
        }
        return rows;
    }

    /** The currency of an order, as the orders table computes it. */
    static String currency(long order) {
        return order % 3 == 0 ? "A" : order % 3 == 1 ? "B" : "C";
    }

    private static long countC(long firstOrder, long lastOrder) {
        long count = 0;
        for (long order = firstOrder; order <= lastOrder; order++) {
            if (currency(order).equals("C")) {
                count++;
            }
        }
        return count;
    }
}
