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

package dev.lateralsnapshot.testutils.metrics;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A metric reporter that keeps the metrics of every LATERAL SNAPSHOT join operator in memory, so
 * that a test, the demo or a benchmark reads them by the names users see, as a metrics system
 * would, while the job runs.
 *
 * <p>Flink creates reporters from the cluster configuration ({@link #configure}) and finds the
 * factory through {@code META-INF/services}; the operators of a MiniCluster run in the JVM that
 * started it, so the reported metrics are kept in a static registry, per job and subtask.
 */
public final class JoinMetricsReporter implements MetricReporter {

    /** The join's operator name: the exec node's simplified name, followed by its id. */
    private static final String OPERATOR_NAME_PREFIX = "LateralSnapshotJoin";

    private static final Map<JobID, Map<Integer, Map<String, Metric>>> METRICS =
            new ConcurrentHashMap<>();

    /** Adds this reporter to a cluster configuration. */
    public static Configuration configure(Configuration configuration) {
        MetricOptions.forReporter(configuration, "join")
                .set(MetricOptions.REPORTER_FACTORY_CLASS, Factory.class.getName());
        return configuration;
    }

    /**
     * The values of the join's metrics of a job, per subtask, as reported now, read one after the
     * other: what one report of a metrics system shows.
     */
    public static JoinMetrics of(JobID job) {
        Map<Integer, Map<String, Object>> values = new TreeMap<>();
        METRICS.getOrDefault(job, Map.of())
                .forEach(
                        (subtask, metrics) -> {
                            Map<String, Object> subtaskValues = new TreeMap<>();
                            metrics.forEach(
                                    (name, metric) -> subtaskValues.put(name, valueOf(metric)));
                            values.put(subtask, subtaskValues);
                        });
        return new JoinMetrics(values);
    }

    /**
     * The current value of one of the join's metrics of a job, by subtask, of the subtasks that
     * have registered it: a subtask registers its metrics one by one as it opens. Cheaper than
     * {@link #of}, for a program that polls one metric often.
     */
    public static Map<Integer, Object> current(JobID job, String name) {
        Map<Integer, Object> values = new TreeMap<>();
        METRICS.getOrDefault(job, Map.of())
                .forEach(
                        (subtask, metrics) -> {
                            Metric metric = metrics.get(name);
                            if (metric != null) {
                                values.put(subtask, valueOf(metric));
                            }
                        });
        return values;
    }

    /**
     * Drops the metrics of a job that has ended. Its gauges hold on to the job's operators, and
     * with them to their state: a program that runs many jobs in one JVM frees that here.
     */
    public static void forget(JobID job) {
        METRICS.remove(job);
    }

    private static Object valueOf(Metric metric) {
        if (metric instanceof Counter) {
            return ((Counter) metric).getCount();
        }
        return ((Gauge<?>) metric).getValue();
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String metricName, MetricGroup group) {
        Map<String, String> variables = group.getAllVariables();
        String operator = variables.get("<operator_name>");
        // Flink's own operator metrics (record meters, say) are of no interest here.
        boolean counterOrGauge = metric instanceof Counter || metric instanceof Gauge;
        if (!counterOrGauge || operator == null || !operator.startsWith(OPERATOR_NAME_PREFIX)) {
            return;
        }
        METRICS.computeIfAbsent(
                        JobID.fromHexString(variables.get("<job_id>")),
                        job -> new ConcurrentHashMap<>())
                .computeIfAbsent(
                        Integer.parseInt(variables.get("<subtask_index>")),
                        subtask -> new ConcurrentHashMap<>())
                .put(metricName, metric);
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String metricName, MetricGroup group) {
        // Kept: a test may read the final values after its job has ended.
    }

    /** Creates the reporter; named in the cluster configuration. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new JoinMetricsReporter();
        }
    }
}
