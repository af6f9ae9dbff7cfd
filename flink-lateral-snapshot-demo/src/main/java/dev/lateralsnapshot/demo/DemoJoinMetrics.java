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

package dev.lateralsnapshot.demo;

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
import java.util.concurrent.ConcurrentHashMap;

/**
 * The metrics of the demo's join, read the way a metrics system reads them: Flink hands every
 * metric of the job to the reporters named in its configuration, and this one keeps those of the
 * {@code LateralSnapshotJoin} operator. The embedded cluster runs in the demo's JVM, so the demo
 * reads them from here.
 */
public final class DemoJoinMetrics implements MetricReporter {

    private static final Map<String, Metric> JOIN_METRICS = new ConcurrentHashMap<>();

    /** Names this reporter in a cluster configuration. */
    static void configure(Configuration configuration) {
        MetricOptions.forReporter(configuration, "demo")
                .set(MetricOptions.REPORTER_FACTORY_CLASS, Factory.class.getName());
    }

    /** The current value of one of the join's metrics, or null before the join reports it. */
    static Object value(String name) {
        Metric metric = JOIN_METRICS.get(name);
        if (metric instanceof Counter) {
            return ((Counter) metric).getCount();
        }
        return metric == null ? null : ((Gauge<?>) metric).getValue();
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
            JOIN_METRICS.put(metricName, metric);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String metricName, MetricGroup group) {}

    /** Found through {@code META-INF/services}, named in the configuration. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new DemoJoinMetrics();
        }
    }
}
