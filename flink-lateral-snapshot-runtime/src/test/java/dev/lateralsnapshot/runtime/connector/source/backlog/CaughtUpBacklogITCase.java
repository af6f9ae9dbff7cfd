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

package dev.lateralsnapshot.runtime.connector.source.backlog;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.apache.flink.runtime.testutils.CommonTestUtils.waitUntilCondition;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wrapper on a MiniCluster: a source at parallelism 2 that serves a fixed number of records and
 * then nothing reports a backlog, and its end once both readers have read everything; an operator
 * behind it that takes both subtasks' channels sees the backlog start and end once each, and the
 * end after the last record. When one reader's split is empty and it never gets a gauge, as a Kafka
 * reader of an empty partition, the end still comes within seconds after the last record.
 */
class CaughtUpBacklogITCase {

    private static final int PARALLELISM = 2;
    private static final long RECORDS_PER_SPLIT = 500;

    /** The end of the backlog is due about a second after the last record; this waits 30 s. */
    private static final long CHECK_INTERVAL_MILLIS = 100;

    private static final int CHECKS = 300;

    /** Ten seconds, in checks: far more than the second the end is due in. */
    private static final int CHECKS_OF_TEN_SECONDS = (int) (10_000 / CHECK_INTERVAL_MILLIS);

    /** What the recording operator saw, in order: "record", or "backlog=" and the flag. */
    private static final Queue<String> SEEN = new ConcurrentLinkedQueue<>();

    @Test
    void theBacklogEndsAfterTheLastRecord() throws Exception {
        List<String> seen = run(new FixedRecordsSource(RECORDS_PER_SPLIT), CHECKS);

        assertThat(seen.stream().filter(element -> element.startsWith("backlog")))
                .containsExactly("backlog=true", "backlog=false");
        assertThat(seen.subList(0, seen.indexOf("backlog=false")))
                .filteredOn("record"::equals)
                .hasSize((int) (PARALLELISM * RECORDS_PER_SPLIT));
    }

    @Test
    void aReaderOfAnEmptySplitWithoutGaugeEndsTheBacklogWithTheOthers() throws Exception {
        List<String> seen =
                run(
                        FixedRecordsSource.withLastSplitEmpty(RECORDS_PER_SPLIT),
                        CHECKS_OF_TEN_SECONDS);

        assertThat(seen.stream().filter(element -> element.startsWith("backlog")))
                .containsExactly("backlog=true", "backlog=false");
        assertThat(seen.subList(0, seen.indexOf("backlog=false")))
                .filteredOn("record"::equals)
                .hasSize((int) RECORDS_PER_SPLIT);
    }

    /**
     * What the recording operator saw of the wrapped source until the end of its backlog, which
     * must come within the checks after the first record.
     */
    private static List<String> run(FixedRecordsSource source, int checksAfterFirstRecord)
            throws Exception {
        SEEN.clear();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.fromSource(
                        CaughtUpBacklog.wrap(source),
                        WatermarkStrategy.noWatermarks(),
                        "fixed-records")
                .setParallelism(PARALLELISM)
                .rebalance()
                .transform("recording", Types.VOID, new RecordingOperator())
                .setParallelism(1);

        try (MiniCluster cluster = new MiniCluster(clusterConfiguration())) {
            cluster.start();
            JobID job = cluster.submitJob(env.getStreamGraph().getJobGraph()).get().getJobID();
            waitUntilCondition(() -> SEEN.contains("record"), CHECK_INTERVAL_MILLIS, CHECKS);
            waitUntilCondition(
                    () -> SEEN.contains("backlog=false"),
                    CHECK_INTERVAL_MILLIS,
                    checksAfterFirstRecord);
            cluster.cancelJob(job).get();
            cluster.requestJobResult(job).get();
        }
        return List.copyOf(SEEN);
    }

    private static MiniClusterConfiguration clusterConfiguration() {
        Configuration configuration = new Configuration();
        configuration.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(16));
        configuration.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.ofMebiBytes(16));
        configuration.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.ofMebiBytes(16));
        return new MiniClusterConfiguration.Builder()
                .setConfiguration(configuration)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(PARALLELISM)
                .build();
    }

    /** Writes down every record and every change of the backlog it receives. */
    private static final class RecordingOperator extends AbstractStreamOperator<Void>
            implements OneInputStreamOperator<Long, Void> {

        @Override
        public void processElement(StreamRecord<Long> element) {
            SEEN.add("record");
        }

        @Override
        public void processRecordAttributes(RecordAttributes recordAttributes) {
            SEEN.add("backlog=" + recordAttributes.isBacklog());
        }
    }
}
