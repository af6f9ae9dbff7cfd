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

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps the LATERAL SNAPSHOT join's metrics of the running job so that the driver can read them
 * directly (no reporting interval): the phase, to see the flip, and the buffered probe rows.
 */
public final class BenchMetrics implements MetricReporter {

    /** Metric name + '#' + subtask index -> metric, for the join operator only. */
    private static final Map<String, Metric> JOIN_METRICS = new ConcurrentHashMap<>();

    static void configure(Configuration configuration) {
        MetricOptions.forReporter(configuration, "bench")
                .set(MetricOptions.REPORTER_FACTORY_CLASS, Factory.class.getName());
    }

    /** The values of a join metric, one per subtask that has registered it. */
    static List<Long> values(String name) {
        List<Long> values = new ArrayList<>();
        JOIN_METRICS.forEach(
                (key, metric) -> {
                    if (key.startsWith(name + "#")) {
                        Object value =
                                metric instanceof Counter
                                        ? ((Counter) metric).getCount()
                                        : ((Gauge<?>) metric).getValue();
                        if (value instanceof Number) {
                            values.add(((Number) value).longValue());
                        }
                    }
                });
        return values;
    }

    static void clear() {
        JOIN_METRICS.clear();
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String metricName, MetricGroup group) {
        String operator = group.getAllVariables().get("<operator_name>");
        if (operator != null
                && operator.startsWith("LateralSnapshotJoin")
                && (metric instanceof Counter || metric instanceof Gauge)) {
            JOIN_METRICS.put(
                    metricName + "#" + group.getAllVariables().get("<subtask_index>"), metric);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String metricName, MetricGroup group) {
        JOIN_METRICS.values().remove(metric);
    }

    /** Named in the cluster configuration, found through {@code META-INF/services}. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new BenchMetrics();
        }
    }
}
