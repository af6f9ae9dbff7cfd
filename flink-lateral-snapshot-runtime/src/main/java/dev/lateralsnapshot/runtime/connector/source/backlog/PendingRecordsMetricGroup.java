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

import org.apache.flink.events.EventBuilder;
import org.apache.flink.metrics.CharacterFilter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.Meter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.OperatorIOMetricGroup;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.traces.SpanBuilder;

import javax.annotation.Nullable;

import java.util.Map;

import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * The reader's metric group as the wrapped source sees it: every call goes to the task's group, and
 * the {@code pendingRecords} gauge the source sets is also kept, for the reader to tell whether it
 * has caught up. The source may set it from its fetcher thread (Flink's Kafka source does, after
 * its first fetch that returns records), hence the volatile field.
 */
final class PendingRecordsMetricGroup implements SourceReaderMetricGroup {

    private final SourceReaderMetricGroup group;

    @Nullable private volatile Gauge<Long> pendingRecords;

    PendingRecordsMetricGroup(SourceReaderMetricGroup group) {
        this.group = checkNotNull(group);
    }

    /** The gauge the source set, or null while it has set none. */
    @Nullable
    Gauge<Long> pendingRecords() {
        return pendingRecords;
    }

    // ---- SourceReaderMetricGroup ----

    @Override
    public void setPendingRecordsGauge(Gauge<Long> pendingRecordsGauge) {
        pendingRecords = pendingRecordsGauge;
        group.setPendingRecordsGauge(pendingRecordsGauge);
    }

    @Override
    public Counter getNumRecordsInErrorsCounter() {
        return group.getNumRecordsInErrorsCounter();
    }

    @Override
    public void setPendingBytesGauge(Gauge<Long> pendingBytesGauge) {
        group.setPendingBytesGauge(pendingBytesGauge);
    }

    @Override
    public OperatorIOMetricGroup getIOMetricGroup() {
        return group.getIOMetricGroup();
    }

    // ---- MetricGroup ----

    @Override
    public void addSpan(SpanBuilder spanBuilder) {
        group.addSpan(spanBuilder);
    }

    @Override
    public void addEvent(EventBuilder eventBuilder) {
        group.addEvent(eventBuilder);
    }

    @Override
    public Counter counter(int name) {
        return group.counter(name);
    }

    @Override
    public Counter counter(String name) {
        return group.counter(name);
    }

    @Override
    public <C extends Counter> C counter(int name, C counter) {
        return group.counter(name, counter);
    }

    @Override
    public <C extends Counter> C counter(String name, C counter) {
        return group.counter(name, counter);
    }

    @Override
    public <T, G extends Gauge<T>> G gauge(int name, G gauge) {
        return group.gauge(name, gauge);
    }

    @Override
    public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
        return group.gauge(name, gauge);
    }

    @Override
    public <H extends Histogram> H histogram(String name, H histogram) {
        return group.histogram(name, histogram);
    }

    @Override
    public <H extends Histogram> H histogram(int name, H histogram) {
        return group.histogram(name, histogram);
    }

    @Override
    public <M extends Meter> M meter(String name, M meter) {
        return group.meter(name, meter);
    }

    @Override
    public <M extends Meter> M meter(int name, M meter) {
        return group.meter(name, meter);
    }

    @Override
    public MetricGroup addGroup(int name) {
        return group.addGroup(name);
    }

    @Override
    public MetricGroup addGroup(String name) {
        return group.addGroup(name);
    }

    @Override
    public MetricGroup addGroup(String key, String value) {
        return group.addGroup(key, value);
    }

    @Override
    public String[] getScopeComponents() {
        return group.getScopeComponents();
    }

    @Override
    public Map<String, String> getAllVariables() {
        return group.getAllVariables();
    }

    @Override
    public String getMetricIdentifier(String metricName) {
        return group.getMetricIdentifier(metricName);
    }

    @Override
    public String getMetricIdentifier(String metricName, CharacterFilter filter) {
        return group.getMetricIdentifier(metricName, filter);
    }
}
