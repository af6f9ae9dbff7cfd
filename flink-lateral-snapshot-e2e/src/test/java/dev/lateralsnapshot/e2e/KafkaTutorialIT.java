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

package dev.lateralsnapshot.e2e;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.LOAD_COMPLETED_REASON;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_BUILD_SIDE_CHANGES_APPLIED;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_PROBE_SIDE_RECORDS_BUFFERED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs docs/kafka-tutorial.md as a reader does, on the broker and cluster of the Kafka tests
 * ({@link LocalKafkaAndFlink}): its {@code bin/kafka-local.sh create-topic} lines, then each {@code
 * ```sql} block in order with the SQL Client ({@code -i} the first block, {@code -f} each other),
 * waiting where the page says to wait; the rows the page shows in its {@code ```text output} blocks
 * must be the rows the SQL Client prints. The page's SQL names the broker {@code localhost:9092};
 * here it is the test broker's address.
 *
 * <p>{@code DocsSqlSnippetsITCase} of flink-lateral-snapshot-tests runs the SQL of the other pages
 * on a MiniCluster, which has no broker; it leaves this page to this test.
 */
@ExtendWith(LocalKafkaAndFlink.class)
class KafkaTutorialIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final LocalKafkaBroker broker = LocalKafkaAndFlink.broker();
    private final LocalFlinkCluster cluster = LocalKafkaAndFlink.cluster();

    @Test
    void theKafkaTutorialRunsAsWritten() {
        long start = System.nanoTime();
        TutorialPage page =
                new TutorialPage(
                        "kafka-tutorial",
                        cluster,
                        Map.of("'localhost:9092'", "'" + broker.bootstrapServers() + "'"));
        List<String> sql = page.blocks("sql");
        List<String> outputs = page.blocks("text output");
        assertThat(sql).as("the SQL blocks of the page").hasSize(10);
        assertThat(outputs).as("the output blocks of the page").hasSize(2);

        // ---- steps 2 and 3: the topics and the tables ----
        for (String line : page.commands("bin/kafka-local.sh create-topic ")) {
            broker.script(line.substring("bin/kafka-local.sh ".length()).split(" "));
        }
        page.init(sql.get(0));

        // ---- steps 4 and 5: customers; then the join and orders. The end of the customers'
        // backlog ends the load phase: the customers were written before the join started, so
        // their watermark never reaches its load completed time ----
        page.insert(sql.get(1));
        List<String> jobs = TutorialPage.jobIds(page.run(sql.get(2) + "\n" + sql.get(3)));
        assertThat(jobs).hasSize(2);
        ClusterJob join = new ClusterJob(cluster.rest(), jobs.get(0)).awaitRunning();
        page.awaitFinished(List.of(jobs.get(1)));
        join.awaitMetric(CURRENT_PHASE, TIMEOUT, phase -> phase == 1);
        assertThat(join.metricValue(LOAD_COMPLETED_REASON))
                .as("the customers' backlog ended the load phase")
                .isEqualTo(3.0);
        // Orders held at the flip, if any, come out in slices: the page's metrics table says the
        // count drops to 0, not that it is 0 at once.
        join.awaitMetric(NUM_PROBE_SIDE_RECORDS_BUFFERED, TIMEOUT, buffered -> buffered == 0);
        broker.readCommitted("enriched-orders", 3, Duration.ofSeconds(1), TIMEOUT);
        TutorialPage.assertSameRows(page.run(sql.get(4)), outputs.get(0));

        // ---- step 6: customer 1 changes, a new order sees the change ----
        page.insert(sql.get(5));
        join.awaitMetric(NUM_BUILD_SIDE_CHANGES_APPLIED, TIMEOUT, applied -> applied == 3);
        page.insert(sql.get(6));
        broker.readCommitted("enriched-orders", 4, Duration.ofSeconds(1), TIMEOUT);
        // With the advice's statements after it: the idle timeout, a table with alignment.
        TutorialPage.assertSameRows(
                page.run(sql.get(7) + "\n" + sql.get(8) + "\n" + sql.get(9)), outputs.get(1));
        System.out.printf(
                "[kafka] docs/kafka-tutorial.md on a local broker: 3 topics, 10 SQL blocks, 2"
                        + " outputs as documented, %.1f s%n",
                (System.nanoTime() - start) / 1e9);
    }
}
