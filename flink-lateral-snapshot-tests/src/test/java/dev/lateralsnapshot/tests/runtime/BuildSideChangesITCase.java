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
import dev.lateralsnapshot.testutils.tables.RateChanges;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static dev.lateralsnapshot.tests.runtime.StreamingScenario.onEverySubtask;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_BUILD_SIDE_WATERMARK;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_BUILD_RETRACTIONS;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_PROBE_RECORDS;
import static dev.lateralsnapshot.testutils.tables.RateChanges.WATERMARK_OF_003;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Build-side updates, deletes and inserts under a LEFT JOIN, after the flip
 * (docs/lateral-snapshot-join.md, "Build-side changes"), on the heap and on the RocksDB state
 * backend.
 */
class BuildSideChangesITCase extends MiniClusterTestBase {

    @ParameterizedTest
    @EnumSource(StateBackendKind.class)
    void ordersSeeEachChangeWholeAndResultsAreNeverRevised(StateBackendKind backend)
            throws Exception {
        try (StreamingScenario scenario = scenario(backend)) {
            scenario.submit(
                    "SELECT o.order_id, o.currency, r.rate FROM orders AS o"
                            + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                            + " on_time => DESCRIPTOR(update_time),"
                            + " load_completed_idle_timeout => INTERVAL '1' SECOND) AS r"
                            + " ON o.currency = r.currency");
            scenario.emitOrders(1, 6);
            scenario.writeBuildFile("001.json", RateChanges.FILE_001);
            scenario.awaitMetrics("both subtasks flip", m -> m.allEqual(CURRENT_PHASE, 1));
            assertThat(scenario.awaitOutput(6))
                    .containsExactlyInAnyOrder(
                            "+I[1, B, 2.0]",
                            "+I[2, C, null]",
                            "+I[3, A, 1.0]",
                            "+I[4, B, 2.0]",
                            "+I[5, C, null]",
                            "+I[6, A, 1.0]");

            // Orders keep coming while 003.json is read and applied: which of them still see the
            // old rates is up to timing, but none may see a change half done.
            long emitted;
            try (OrderEmitter emitter = new OrderEmitter(scenario, 7, 10)) {
                scenario.writeBuildFile("003.json", RateChanges.FILE_003);
                scenario.awaitMetrics(
                        "the build watermark reaches 003.json's Z row",
                        m -> m.allEqual(CURRENT_BUILD_SIDE_WATERMARK, WATERMARK_OF_003));
                emitted = emitter.stop();
            }
            long lastId = emitted;
            // Every change is applied once the watermark passed it: new A orders see 1.5, B is
            // deleted, C inserted.
            scenario.emitOrders(lastId + 1, lastId + 6);
            List<String> output = scenario.awaitOutput((int) lastId + 6);
            List<EnrichedOrder> orders =
                    output.stream().map(EnrichedOrder::parse).collect(Collectors.toList());
            assertThat(
                            orders.stream()
                                    .filter(order -> order.orderId > lastId)
                                    .map(order -> order.row))
                    .containsExactlyInAnyOrder(
                            row(lastId + 1),
                            row(lastId + 2),
                            row(lastId + 3),
                            row(lastId + 4),
                            row(lastId + 5),
                            row(lastId + 6));

            // Insert-only, one row per order: never revised, never joined twice. An insert of A's
            // new row applied before the retraction of its old one would show as two rows.
            assertThat(orders).allSatisfy(order -> assertThat(order.kind).isEqualTo("+I"));
            assertThat(orders.stream().map(order -> order.orderId))
                    .containsExactlyInAnyOrderElementsOf(
                            LongStream.rangeClosed(1, lastId + 6)
                                    .boxed()
                                    .collect(Collectors.toList()));
            // All orders of a currency are joined on one subtask, and the sink, chained to it,
            // receives them in the order they were joined: each sees the old rate up to some order
            // and the new one from the next order on. A's retraction applied before its insert
            // would show as a NULL rate in between.
            assertThat(ratesInOutputOrder(orders, "A")).containsExactly("1.0", "1.5");
            assertThat(ratesInOutputOrder(orders, "B")).containsExactly("2.0", null);
            assertThat(ratesInOutputOrder(orders, "C")).containsExactly(null, "3.0");

            assertThat(scenario.metrics().longs(NUM_UNMATCHED_BUILD_RETRACTIONS))
                    .isEqualTo(onEverySubtask(0));
            // The counter counts every probe row without a match, for LEFT joins too: the
            // null-padded ones (docs/lateral-snapshot-join.md, "Metrics"; Flink 2.4 counts them
            // otherwise, see "This library and Flink 2.4").
            assertThat(scenario.metrics().sum(NUM_UNMATCHED_PROBE_RECORDS))
                    .isEqualTo(orders.stream().filter(order -> order.rate == null).count());
        }
    }

    /** The row of an order that arrives once 003.json is applied. */
    private static String row(long orderId) {
        switch ((int) (orderId % 3)) {
            case 0:
                return "+I[" + orderId + ", A, 1.5]";
            case 1:
                return "+I[" + orderId + ", B, null]";
            default:
                return "+I[" + orderId + ", C, 3.0]";
        }
    }

    /** The rates a currency's orders got, in output order, with repeats collapsed. */
    private static List<String> ratesInOutputOrder(List<EnrichedOrder> orders, String currency) {
        List<String> rates = new ArrayList<>();
        for (EnrichedOrder order : orders) {
            if (order.currency.equals(currency)
                    && (rates.isEmpty()
                            || !Objects.equals(rates.get(rates.size() - 1), order.rate))) {
                rates.add(order.rate);
            }
        }
        return rates;
    }
}
