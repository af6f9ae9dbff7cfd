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
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_STATE_TTL_EVICTIONS;
import static dev.lateralsnapshot.testutils.tables.RateChanges.WATERMARK_OF_001;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * State TTL of the build side (docs/lateral-snapshot-join.md, "State and state TTL"), on the heap
 * and on the RocksDB state backend.
 *
 * <p>The TTL is two seconds and the idle timeout three, so that the load phase holds the loaded
 * build rows longer than the TTL: that makes "nothing is evicted during the load phase" a real
 * check.
 */
class StateTtlITCase extends MiniClusterTestBase {

    private static final long STATE_TTL_MILLIS = 2000;

    @ParameterizedTest
    @EnumSource(StateBackendKind.class)
    void evictsOnlyTheKeyThatNoOrderAccesses(StateBackendKind backend) throws Exception {
        try (StreamingScenario scenario = scenario(backend)) {
            scenario.submit(
                    "SELECT o.order_id, o.currency, r.rate FROM orders AS o"
                            + " JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                            + " on_time => DESCRIPTOR(update_time),"
                            + " load_completed_idle_timeout => INTERVAL '3' SECOND,"
                            + " state_ttl => INTERVAL '2' SECOND) AS r"
                            + " ON o.currency = r.currency");
            long lastId;
            // An order every 50 ms: each currency is probed far more often than the TTL.
            try (OrderEmitter emitter = new OrderEmitter(scenario, 1, 50)) {
                scenario.writeBuildFile("001.json", RateChanges.FILE_001);
                scenario.awaitMetrics(
                        "001.json is loaded",
                        m -> m.allEqual(CURRENT_BUILD_SIDE_WATERMARK, WATERMARK_OF_001));
                // The loaded rows outlive the TTL in the load phase, untouched.
                JoinMetrics metrics = scenario.metrics();
                while (!metrics.allEqual(CURRENT_PHASE, 1)) {
                    assertThat(metrics.sum(NUM_STATE_TTL_EVICTIONS)).as("load phase").isZero();
                    Thread.sleep(50);
                    metrics = scenario.metrics();
                }
                // Z, which no order ever asks for, is evicted one TTL after the flip. A and B,
                // whose clocks started with Z's, must outlive it by another TTL and more.
                scenario.awaitMetrics(
                        "the Z key is evicted", m -> m.sum(NUM_STATE_TTL_EVICTIONS) == 1);
                Thread.sleep(STATE_TTL_MILLIS + 500);
                lastId = emitter.stop();
            }
            assertThat(scenario.metrics().sum(NUM_STATE_TTL_EVICTIONS)).isEqualTo(1);

            // A and B were kept: every A and B order found its rate, before and after the eviction.
            List<Long> matchedOrders =
                    LongStream.rangeClosed(1, lastId)
                            .filter(id -> id % 3 != 2)
                            .boxed()
                            .collect(Collectors.toList());
            List<String> output = scenario.awaitOutput(matchedOrders.size());
            assertThat(output.stream().map(EnrichedOrder::parse).map(order -> order.orderId))
                    .containsExactlyInAnyOrderElementsOf(matchedOrders);
            assertThat(output)
                    .allMatch(row -> row.endsWith(", A, 1.0]") || row.endsWith(", B, 2.0]"));
        }
    }
}
