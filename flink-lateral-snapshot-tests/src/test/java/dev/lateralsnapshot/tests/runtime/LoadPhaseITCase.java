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

import dev.lateralsnapshot.testutils.environments.StateBackendKind;
import dev.lateralsnapshot.testutils.metrics.JoinMetrics;
import dev.lateralsnapshot.testutils.tables.RateChanges;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static dev.lateralsnapshot.tests.runtime.StreamingScenario.onEverySubtask;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PROBE_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.MAX_JOIN_FAN_OUT;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_PROBE_SIDE_RECORDS_BUFFERED;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_PROBE_RECORDS;
import static dev.lateralsnapshot.testutils.tables.RateChanges.WATERMARK_OF_001;
import static dev.lateralsnapshot.testutils.tables.RateChanges.WATERMARK_OF_002;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The load phase and the flip to the join phase (docs/lateral-snapshot-join.md, "How it works" and
 * "Choosing how the load phase ends"), on the heap and on the RocksDB state backend.
 *
 * <p>The idle timeout is three seconds: its length is not the point, only that the flip waits for
 * it, while the test buffers orders in the load phase.
 */
class LoadPhaseITCase extends MiniClusterTestBase {

    private static final String INNER_JOIN =
            "SELECT o.order_id, o.currency, r.rate FROM orders AS o JOIN LATERAL SNAPSHOT(";

    private static final String ON_CURRENCY = ") AS r ON o.currency = r.currency";

    /** The load phase, and the flip once the build watermark has been idle for the timeout. */
    @ParameterizedTest
    @EnumSource(StateBackendKind.class)
    void flipsAfterTheIdleTimeoutAndEmitsTheBufferedOrdersAtOnce(StateBackendKind backend)
            throws Exception {
        long start = System.currentTimeMillis();
        try (StreamingScenario scenario = scenario(backend)) {
            scenario.submit(
                    INNER_JOIN
                            + "input => TABLE rates, on_time => DESCRIPTOR(update_time),"
                            + " load_completed_idle_timeout => INTERVAL '3' SECOND"
                            + ON_CURRENCY);
            assertThat(scenario.stateBackendName()).isEqualTo(backend.backendName);

            // Orders before any build data and after it are buffered alike. The empty build side
            // goes idle after the source idle timeout, which starts the clock; the watermark of
            // 001.json restarts it, and the join flips once it has not moved for 3 s.
            scenario.emitOrders(1, 6);
            scenario.awaitMetrics("6 orders are buffered", m -> buffered(m) == 6);
            scenario.writeBuildFile("001.json", RateChanges.FILE_001);
            scenario.awaitMetrics(
                    "the build watermark reaches 001.json's Z row",
                    m -> m.allEqual(CURRENT_BUILD_SIDE_WATERMARK, WATERMARK_OF_001));
            scenario.emitOrders(7, 9);
            scenario.awaitMetrics("9 orders are buffered", m -> buffered(m) == 9);
            assertThat(scenario.metrics().longs(CURRENT_PHASE)).isEqualTo(onEverySubtask(0L));
            assertThat(scenario.output()).isEmpty();

            scenario.awaitMetrics("both subtasks flip", m -> m.allEqual(CURRENT_PHASE, 1));
            // Every buffered order comes out at the flip, before any other: A at 1.0, B at 2.0.
            // The C orders find no rate, and the inner join drops them.
            assertThat(scenario.awaitOutput(6))
                    .containsExactlyInAnyOrder(
                            "+I[1, B, 2.0]",
                            "+I[3, A, 1.0]",
                            "+I[4, B, 2.0]",
                            "+I[6, A, 1.0]",
                            "+I[7, B, 2.0]",
                            "+I[9, A, 1.0]");
            assertThat(buffered(scenario.metrics())).isZero();
            assertThat(scenario.metrics().sum(NUM_UNMATCHED_PROBE_RECORDS)).isEqualTo(3);

            // New orders are joined at once: the build watermark no longer moves, so a join that
            // waited for it would never emit them.
            scenario.emitOrders(10, 12);
            List<String> output = scenario.awaitOutput(8);
            assertThat(output.subList(6, output.size()))
                    .containsExactlyInAnyOrder("+I[10, B, 2.0]", "+I[12, A, 1.0]");
            scenario.awaitMetrics(
                    "the new C order is counted", m -> m.sum(NUM_UNMATCHED_PROBE_RECORDS) == 4);

            assertThat(scenario.metrics().longs(CURRENT_BUILD_SIDE_WATERMARK))
                    .isEqualTo(onEverySubtask(WATERMARK_OF_001));
            // The probe watermark is the orders' LOCALTIMESTAMP (UTC) less one second.
            assertThat(scenario.metrics().longs(CURRENT_PROBE_SIDE_WATERMARK).values())
                    .allSatisfy(
                            watermark ->
                                    assertThat(watermark)
                                            .isBetween(start - 1000, System.currentTimeMillis()));
            assertThat(scenario.metrics().max(MAX_JOIN_FAN_OUT)).isEqualTo(1);
        }
    }

    /** Stuck in the load phase without a timeout, then a flip at the load completion time. */
    @ParameterizedTest
    @EnumSource(StateBackendKind.class)
    void staysInTheLoadPhaseUntilTheBuildWatermarkReachesTheLoadCompletedTime(
            StateBackendKind backend) throws Exception {
        try (StreamingScenario scenario = scenario(backend)) {
            // The default load completion time is the wall-clock time of compilation, which the
            // watermark of January 2026 never reaches.
            scenario.submit(
                    INNER_JOIN
                            + "input => TABLE rates, on_time => DESCRIPTOR(update_time)"
                            + ON_CURRENCY);
            bufferOrdersAroundFile001(scenario);
            // Longer than the idle timeout of the test above.
            Thread.sleep(3500);
            assertThat(scenario.metrics().longs(CURRENT_PHASE)).isEqualTo(onEverySubtask(0L));
            assertThat(scenario.metrics().longs(CURRENT_BUILD_SIDE_WATERMARK))
                    .isEqualTo(onEverySubtask(WATERMARK_OF_001));
            assertThat(buffered(scenario.metrics())).isEqualTo(6);
            assertThat(scenario.output()).isEmpty();
        }

        try (StreamingScenario scenario = scenario(backend)) {
            scenario.submit(
                    INNER_JOIN
                            + "input => TABLE rates, on_time => DESCRIPTOR(update_time),"
                            + " load_completed_time =>"
                            + " CAST(TIMESTAMP '2026-01-02 00:00:00' AS TIMESTAMP_LTZ(3))"
                            + ON_CURRENCY);
            bufferOrdersAroundFile001(scenario);
            assertThat(scenario.metrics().longs(CURRENT_PHASE)).isEqualTo(onEverySubtask(0L));
            assertThat(scenario.output()).isEmpty();

            scenario.writeBuildFile("002.json", RateChanges.FILE_002);
            scenario.awaitMetrics("both subtasks flip", m -> m.allEqual(CURRENT_PHASE, 1));
            assertThat(scenario.awaitOutput(4))
                    .containsExactlyInAnyOrder(
                            "+I[1, B, 2.0]", "+I[3, A, 1.0]", "+I[4, B, 2.0]", "+I[6, A, 1.0]");
            assertThat(scenario.metrics().longs(CURRENT_BUILD_SIDE_WATERMARK))
                    .isEqualTo(onEverySubtask(WATERMARK_OF_002));
            assertThat(buffered(scenario.metrics())).isZero();
        }
    }

    /**
     * Orders 1 to 3 arrive before 001.json, orders 4 to 6 once the build watermark has reached its
     * Z row: the join buffers all six, because that watermark is below the load completion time.
     */
    private static void bufferOrdersAroundFile001(StreamingScenario scenario) throws Exception {
        scenario.emitOrders(1, 3);
        scenario.writeBuildFile("001.json", RateChanges.FILE_001);
        scenario.awaitMetrics(
                "the build watermark reaches 001.json's Z row",
                m -> m.allEqual(CURRENT_BUILD_SIDE_WATERMARK, WATERMARK_OF_001));
        scenario.emitOrders(4, 6);
        scenario.awaitMetrics("6 orders are buffered", m -> buffered(m) == 6);
    }

    private static long buffered(JoinMetrics metrics) {
        return metrics.sum(NUM_PROBE_SIDE_RECORDS_BUFFERED);
    }
}
