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

import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.watermark.Watermark;
import org.apache.flink.api.connector.source.RichSourceReaderContext;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.util.UserCodeClassLoader;

import javax.annotation.Nullable;

import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * The reader context the wrapped source is created with: everything goes to the task's context,
 * except that the metric group keeps the {@code pendingRecords} gauge the source sets.
 *
 * <p>It is a {@link RichSourceReaderContext} because Flink's source operator always passes one and
 * readers may check for it; the runtime context is the task's. A context that is not rich (a
 * test's) gives a rich context without a runtime context, as a new one is.
 */
final class PendingRecordsReaderContext extends RichSourceReaderContext {

    private final SourceReaderContext context;
    private final PendingRecordsMetricGroup metrics;

    PendingRecordsReaderContext(SourceReaderContext context) {
        this.context = checkNotNull(context);
        this.metrics = new PendingRecordsMetricGroup(context.metricGroup());
    }

    /** The gauge the source set, or null while it has set none. */
    @Nullable
    Gauge<Long> pendingRecords() {
        return metrics.pendingRecords();
    }

    @Override
    public SourceReaderMetricGroup metricGroup() {
        return metrics;
    }

    @Override
    public Configuration getConfiguration() {
        return context.getConfiguration();
    }

    @Override
    public String getLocalHostName() {
        return context.getLocalHostName();
    }

    @Override
    public int getIndexOfSubtask() {
        return context.getIndexOfSubtask();
    }

    @Override
    public void sendSplitRequest() {
        context.sendSplitRequest();
    }

    @Override
    public void sendSourceEventToCoordinator(SourceEvent sourceEvent) {
        context.sendSourceEventToCoordinator(sourceEvent);
    }

    @Override
    public UserCodeClassLoader getUserCodeClassLoader() {
        return context.getUserCodeClassLoader();
    }

    @Override
    public int currentParallelism() {
        return context.currentParallelism();
    }

    @Override
    public void emitWatermark(Watermark watermark) {
        context.emitWatermark(watermark);
    }

    @Override
    public void setRuntimeContext(RuntimeContext runtimeContext) {
        if (context instanceof RichSourceReaderContext rich) {
            rich.setRuntimeContext(runtimeContext);
        } else {
            super.setRuntimeContext(runtimeContext);
        }
    }

    @Override
    public RuntimeContext getRuntimeContext() {
        return context instanceof RichSourceReaderContext rich
                ? rich.getRuntimeContext()
                : super.getRuntimeContext();
    }
}
