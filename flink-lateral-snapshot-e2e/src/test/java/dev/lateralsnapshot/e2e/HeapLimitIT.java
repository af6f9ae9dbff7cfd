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

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reference table that does not fit in the heap, on the heap state backend of the assembled
 * cluster (docs/operations.md, "When the state outgrows the heap"): the job fails with the join's
 * message, which says how full the heap is and what to change, and the TaskManagers live on, where
 * without it the JVM would run out of heap, in any of its threads.
 *
 * <p>The table is Flink's {@code datagen}: 2,000,000 products of about 1 KiB each, far more than
 * the heap of the distribution's TaskManagers (1536 MiB of process memory, about 400 MiB of heap),
 * all with a time of 1970, so that the load phase lasts until the source has emitted them all, as
 * it would for a table read from a database.
 */
class HeapLimitIT {

    private static final String FAILURE =
            "The LATERAL SNAPSHOT join no longer fits in the heap of this TaskManager";

    private static final String DDL =
            "SET 'restart-strategy.type' = 'none';\n"
                    + "SET 'parallelism.default' = '2';\n"
                    + "CREATE TABLE products (\n"
                    + "  pid BIGINT, name STRING, updated_at AS TO_TIMESTAMP_LTZ(0, 3),\n"
                    + "  PRIMARY KEY (pid) NOT ENFORCED,\n"
                    + "  WATERMARK FOR updated_at AS updated_at\n"
                    + ") WITH (\n"
                    + "  'connector' = 'datagen', 'number-of-rows' = '2000000',\n"
                    + "  'rows-per-second' = '100000000',\n"
                    + "  'fields.pid.kind' = 'sequence', 'fields.pid.start' = '1',\n"
                    + "  'fields.pid.end' = '2000000', 'fields.name.length' = '1000');\n"
                    + "CREATE TABLE orders (oid BIGINT, pid BIGINT) WITH (\n"
                    + "  'connector' = 'datagen', 'rows-per-second' = '100',\n"
                    + "  'fields.pid.min' = '1', 'fields.pid.max' = '2000000');\n"
                    + "CREATE TABLE enriched (oid BIGINT, name STRING)"
                    + " WITH ('connector' = 'blackhole');\n";

    private static final String INSERT =
            "INSERT INTO enriched SELECT o.oid, p.name FROM orders AS o\n"
                    + "JOIN LATERAL SNAPSHOT(input => TABLE products,"
                    + " on_time => DESCRIPTOR(updated_at)) AS p\n"
                    + "ON o.pid = p.pid;\n";

    private LocalFlinkCluster cluster;

    @BeforeEach
    void startCluster() throws IOException {
        cluster = LocalFlinkCluster.start(Map.of("state.backend.type", "hashmap"));
    }

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aTableLargerThanTheHeapFailsTheJobWithTheJoinsMessageAndTheTaskManagersLiveOn() {
        List<Long> daemons = cluster.daemonPids();
        Set<String> taskManagers = cluster.taskManagerIds();
        long start = System.nanoTime();

        ClusterJob job = ClusterJob.submittedWithSqlClient(cluster, "heap-limit", DDL, INSERT);
        Wait.until(
                Duration.ofMinutes(3),
                "the job to fail",
                job::state,
                "FAILED"::equals,
                () -> newestRootCause(job));

        String failure = newestRootCause(job);
        assertThat(failure)
                .startsWith("org.apache.flink.util.FlinkRuntimeException: " + FAILURE)
                .contains("This subtask's state: load phase")
                .contains("On the 'hashmap' state backend")
                .contains("'state.backend.type' = 'rocksdb'");
        assertThat(cluster.daemonPids()).as("no daemon died").isEqualTo(daemons);
        assertThat(cluster.taskManagerIds()).as("still registered").isEqualTo(taskManagers);
        for (Path log : cluster.taskManagerLogs()) {
            assertThat(LocalFlinkCluster.readLines(log))
                    .as("%s", log)
                    .noneMatch(line -> line.contains("OutOfMemoryError"));
        }
        System.out.printf(
                "[heap limit] a 2,000,000-row table on the heap backend failed the job after"
                        + " %.1f s: %s%n",
                (System.nanoTime() - start) / 1e9, failure);
    }

    /** The root cause of the newest entry of the job's exception history, or "". */
    private static String newestRootCause(ClusterJob job) {
        List<String> stackTraces = job.failureStackTraces();
        return stackTraces.isEmpty() ? "" : ClusterJob.rootCause(stackTraces.get(0));
    }
}
