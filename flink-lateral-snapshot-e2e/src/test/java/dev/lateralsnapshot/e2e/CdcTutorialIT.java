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
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_BUILD_RETRACTIONS;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_PROBE_RECORDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs docs/cdc-tutorial.md as a reader does, on the broker and cluster of the Kafka tests and the
 * PostgreSQL server and Connect worker of the CDC tests: its {@code ```sql psql} blocks with psql,
 * its connector's JSON with {@code bin/connect-local.sh add-connector}, its {@code
 * bin/kafka-local.sh create-topic} lines, then each {@code ```sql} block in order with the SQL
 * Client, waiting where the page says to wait; the rows the page shows in its {@code ```text
 * output} blocks must be the rows the SQL Client prints, and the join's metrics those of the page's
 * table. The page names the broker {@code localhost:9092} and the database port 5432; here they are
 * the test servers'.
 */
@ExtendWith({LocalKafkaAndFlink.class, LocalPostgresAndConnect.class})
class CdcTutorialIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Duration QUIET = Duration.ofSeconds(1);

    private final LocalKafkaBroker broker = LocalKafkaAndFlink.broker();
    private final LocalFlinkCluster cluster = LocalKafkaAndFlink.cluster();
    private final LocalPostgres postgres = LocalPostgresAndConnect.postgres();
    private final LocalConnectWorker connect = LocalPostgresAndConnect.connect();

    @Test
    void theCdcTutorialRunsAsWritten() {
        long start = System.nanoTime();
        TutorialPage page =
                new TutorialPage(
                        "cdc-tutorial",
                        cluster,
                        Map.of(
                                "'localhost:9092'", "'" + broker.bootstrapServers() + "'",
                                "\"database.port\": \"5432\"",
                                        "\"database.port\": \"" + postgres.port() + "\""));
        List<String> sql = page.blocks("sql");
        List<String> psql = page.blocks("sql psql");
        List<String> connector = page.blocks("json");
        List<String> outputs = page.blocks("text output");
        assertThat(sql).as("the Flink SQL blocks of the page").hasSize(6);
        assertThat(psql).as("the PostgreSQL blocks of the page").hasSize(2);
        assertThat(connector).as("the connector of the page").hasSize(1);
        assertThat(outputs).as("the output blocks of the page").hasSize(2);

        // ---- steps 2 and 3: the table in PostgreSQL, the connector and its snapshot ----
        postgres.psql(psql.get(0));
        connect.addConnector("customers", page.replaced(connector.get(0)));
        String customersTopic = "shop.public.customers";
        broker.readCommitted(customersTopic, 2, QUIET, TIMEOUT);

        // ---- steps 4 and 5: the topics, the tables, the join; the snapshot's backlog ends the
        // load phase ----
        for (String line : page.commands("bin/kafka-local.sh create-topic ")) {
            broker.script(line.substring("bin/kafka-local.sh ".length()).split(" "));
        }
        page.init(sql.get(0));
        ClusterJob join =
                new ClusterJob(cluster.rest(), TutorialPage.jobIds(page.run(sql.get(1))).get(0))
                        .awaitRunning();
        join.awaitMetric(CURRENT_PHASE, TIMEOUT, phase -> phase == 1);
        assertThat(join.metricValue(LOAD_COMPLETED_REASON))
                .as("the end of the customers' backlog ended the load phase")
                .isEqualTo(3.0);
        assertThat(join.metricValue(NUM_BUILD_SIDE_CHANGES_APPLIED))
                .as("the snapshot")
                .isEqualTo(2.0);

        // ---- step 6: orders ----
        page.insert(sql.get(2));
        broker.readCommitted("shop-enriched-orders", 3, QUIET, TIMEOUT);
        TutorialPage.assertSameRows(page.run(sql.get(3)), outputs.get(0));
        assertThat(join.metricValue(NUM_UNMATCHED_PROBE_RECORDS)).isEqualTo(1.0);

        // ---- step 7: an update and a delete in PostgreSQL, seen by later orders ----
        postgres.psql(psql.get(1));
        join.awaitMetric(NUM_BUILD_SIDE_CHANGES_APPLIED, TIMEOUT, applied -> applied == 4);
        page.insert(sql.get(4));
        broker.readCommitted("shop-enriched-orders", 5, QUIET, TIMEOUT);
        TutorialPage.assertSameRows(page.run(sql.get(5)), outputs.get(1));
        join.awaitMetric(NUM_UNMATCHED_PROBE_RECORDS, TIMEOUT, unmatched -> unmatched == 2);
        assertThat(join.metricValue(NUM_UNMATCHED_BUILD_RETRACTIONS)).isZero();
        System.out.printf(
                "[cdc] docs/cdc-tutorial.md on PostgreSQL, Debezium and a local broker: 2 psql"
                        + " blocks, 1 connector, 6 SQL blocks, 2 outputs as documented, load phase"
                        + " ended by the snapshot's backlog, 4 customer changes applied, 5 orders"
                        + " in and out, %.1f s%n",
                (System.nanoTime() - start) / 1e9);
    }
}
