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

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.runtime.metrics.MetricNames;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_PROBE_RECORDS;

/**
 * The counters from which {@link JobRunner} tells how many probe rows each subtask of a LATERAL
 * SNAPSHOT join joined: the rows the join operator emitted and the probe rows it matched with no
 * build row, per job and subtask. The test utilities' {@code JoinMetricsReporter} keeps the metrics
 * of operators named {@code LateralSnapshotJoin...} only, and the broadcast join's operator is
 * {@code LateralSnapshotBroadcastJoin[...]} (see the stream graph edges the benchmark writes next
 * to each plan), so this reporter takes every operator whose name starts with {@code
 * LateralSnapshot}.
 */
public final class JoinProbeCounters implements MetricReporter {

    private static final String OPERATOR_NAME_PREFIX = "LateralSnapshot";

    /** Per job, per subtask: the counters {@code numRecordsOut} and numUnmatchedProbeRecords. */
    private static final Map<JobID, Map<Integer, Counter[]>> COUNTERS = new ConcurrentHashMap<>();

    /** Adds this reporter to a cluster configuration. */
    static void configure(Configuration configuration) {
        MetricOptions.forReporter(configuration, "join-probe-counters")
                .set(MetricOptions.REPORTER_FACTORY_CLASS, Factory.class.getName());
    }

    /**
     * The probe rows each subtask of the job's join has joined so far: emitted plus unmatched,
     * which is exact for an inner join where a probe row matches at most one build row.
     */
    static Map<Integer, Long> probeRowsJoined(JobID job) {
        Map<Integer, Long> rows = new ConcurrentHashMap<>();
        COUNTERS.getOrDefault(job, Map.of())
                .forEach(
                        (subtask, counters) -> {
                            long joined = 0;
                            for (Counter counter : counters) {
                                joined += counter == null ? 0 : counter.getCount();
                            }
                            rows.put(subtask, joined);
                        });
        return rows;
    }

    /** Drops a job's counters; they hold on to its operators. */
    static void forget(JobID job) {
        COUNTERS.remove(job);
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String metricName, MetricGroup group) {
        Map<String, String> variables = group.getAllVariables();
        String operator = variables.get("<operator_name>");
        int slot =
                metricName.equals(MetricNames.IO_NUM_RECORDS_OUT)
                        ? 0
                        : metricName.equals(NUM_UNMATCHED_PROBE_RECORDS) ? 1 : -1;
        if (slot < 0
                || !(metric instanceof Counter)
                || operator == null
                || !operator.startsWith(OPERATOR_NAME_PREFIX)) {
            return;
        }
        COUNTERS.computeIfAbsent(
                                JobID.fromHexString(variables.get("<job_id>")),
                                job -> new ConcurrentHashMap<>())
                        .computeIfAbsent(
                                Integer.parseInt(variables.get("<subtask_index>")),
                                subtask -> new Counter[2])[slot] =
                (Counter) metric;
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String metricName, MetricGroup group) {
        // Kept until forget: the runner reads them when the job is done.
    }

    /** Creates the reporter; named in the cluster configuration. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new JoinProbeCounters();
        }
    }
}
