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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

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

    private static final Pattern FENCE = Pattern.compile("^```\\s*(.*)$");
    private static final Pattern JOB_ID = Pattern.compile("Job ID: ([0-9a-f]{32})");
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final LocalKafkaBroker broker = LocalKafkaAndFlink.broker();
    private final LocalFlinkCluster cluster = LocalKafkaAndFlink.cluster();
    private Path init;
    private int scripts;

    @Test
    void theKafkaTutorialRunsAsWritten() throws IOException {
        long start = System.nanoTime();
        Path page = Path.of("").toAbsolutePath().getParent().resolve("docs/kafka-tutorial.md");
        List<String> sql = blocks(page, "sql");
        List<String> outputs = blocks(page, "text output");
        assertThat(sql).as("the SQL blocks of %s", page).hasSize(10);
        assertThat(outputs).as("the output blocks of %s", page).hasSize(2);

        // ---- steps 2 and 3: the topics and the tables ----
        for (String block : blocks(page, "bash")) {
            for (String line : block.split("\n")) {
                if (line.startsWith("bin/kafka-local.sh create-topic ")) {
                    broker.script(line.substring("bin/kafka-local.sh ".length()).split(" "));
                }
            }
        }
        init = write("kafka-tutorial.sql", sql.get(0));

        // ---- steps 4 and 5: customers; then the join and orders. The end of the customers'
        // backlog ends the load phase: the customers were written before the join started, so
        // their watermark never reaches its load completed time ----
        awaitFinished(jobIds(run(sql.get(1))));
        List<String> jobs = jobIds(run(sql.get(2) + "\n" + sql.get(3)));
        assertThat(jobs).hasSize(2);
        ClusterJob join = new ClusterJob(cluster.rest(), jobs.get(0)).awaitRunning();
        awaitFinished(List.of(jobs.get(1)));
        join.awaitMetric(CURRENT_PHASE, TIMEOUT, phase -> phase == 1);
        assertThat(join.metricValue(LOAD_COMPLETED_REASON))
                .as("the customers' backlog ended the load phase")
                .isEqualTo(3.0);
        // Orders held at the flip, if any, come out in slices: the page's metrics table says the
        // count drops to 0, not that it is 0 at once.
        join.awaitMetric(NUM_PROBE_SIDE_RECORDS_BUFFERED, TIMEOUT, buffered -> buffered == 0);
        broker.readCommitted("enriched-orders", 3, Duration.ofSeconds(1), TIMEOUT);
        assertSameRows(run(sql.get(4)), outputs.get(0));

        // ---- step 6: customer 1 changes, a new order sees the change ----
        awaitFinished(jobIds(run(sql.get(5))));
        join.awaitMetric(NUM_BUILD_SIDE_CHANGES_APPLIED, TIMEOUT, applied -> applied == 3);
        awaitFinished(jobIds(run(sql.get(6))));
        broker.readCommitted("enriched-orders", 4, Duration.ofSeconds(1), TIMEOUT);
        // With the advice's statements after it: the idle timeout, a table with alignment.
        assertSameRows(run(sql.get(7) + "\n" + sql.get(8) + "\n" + sql.get(9)), outputs.get(1));
        System.out.printf(
                "[kafka] docs/kafka-tutorial.md on a local broker: 3 topics, 10 SQL blocks, 2"
                        + " outputs as documented, %.1f s%n",
                (System.nanoTime() - start) / 1e9);
    }

    // ---- the page ----

    /** The bodies of the page's code blocks whose info string is {@code info}, in order. */
    private static List<String> blocks(Path page, String info) throws IOException {
        List<String> blocks = new ArrayList<>();
        List<String> lines = Files.readAllLines(page);
        for (int i = 0; i < lines.size(); i++) {
            Matcher fence = FENCE.matcher(lines.get(i));
            if (!fence.matches() || fence.group(1).isEmpty()) {
                continue;
            }
            int end = i + 1;
            while (!lines.get(end).equals("```")) {
                end++;
            }
            if (fence.group(1).trim().equals(info)) {
                blocks.add(String.join("\n", lines.subList(i + 1, end)));
            }
            i = end;
        }
        return blocks;
    }

    // ---- the SQL Client ----

    /**
     * Runs statements with the SQL Client, the tables' block as init script; returns its output.
     */
    private String run(String statements) {
        String printed =
                cluster.sqlClientWithFile(
                        init, write("kafka-tutorial-" + ++scripts + ".sql", statements));
        assertThat(printed).as("what the SQL Client printed").doesNotContain("[ERROR]");
        return printed;
    }

    private static List<String> jobIds(String printed) {
        List<String> ids = new ArrayList<>();
        Matcher id = JOB_ID.matcher(printed);
        while (id.find()) {
            ids.add(id.group(1));
        }
        assertThat(ids).as("a submitted job in:%n%s", printed).isNotEmpty();
        return ids;
    }

    /** Waits until the jobs of {@code INSERT ... VALUES} statements have written their rows. */
    private void awaitFinished(List<String> jobIds) {
        for (String id : jobIds) {
            ClusterJob job = new ClusterJob(cluster.rest(), id);
            Wait.until(TIMEOUT, "job " + id + " FINISHED", () -> job.state().equals("FINISHED"));
        }
    }

    /** The rows of a tableau result, as lists of cells, sorted: the page allows any order. */
    private static void assertSameRows(String printed, String documented) {
        assertThat(rows(printed))
                .as("the rows of%n%s%nagainst the page's%n%s", printed, documented)
                .isEqualTo(rows(documented));
    }

    private static List<List<String>> rows(String table) {
        return Arrays.stream(table.split("\n"))
                .filter(line -> line.startsWith("| "))
                .map(
                        line ->
                                Arrays.stream(line.substring(1).split("\\|"))
                                        .map(String::trim)
                                        .collect(Collectors.toList()))
                .sorted((a, b) -> a.toString().compareTo(b.toString()))
                .collect(Collectors.toList());
    }

    private Path write(String name, String text) {
        try {
            return Files.writeString(
                    cluster.runDirectory().resolve(name),
                    text.replace("'localhost:9092'", "'" + broker.bootstrapServers() + "'"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
