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

package dev.lateralsnapshot.planner.connector.source;

import dev.lateralsnapshot.runtime.connector.source.backlog.CaughtUpBacklog;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.data.RowData;

import java.util.Optional;

import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * A scan table source whose FLIP-27 source reports a backlog until its readers have caught up
 * ({@link CaughtUpBacklog}): everything else is the source's own. It is put in the place of the
 * source of an exec-node scan whose abilities (projection, filter, watermark push-down) were
 * applied, which is why it implements none of them.
 *
 * <p>A {@link SourceProvider}'s source is wrapped directly; the stream of a {@link
 * DataStreamScanProvider} (Kafka, upsert-kafka) through {@link BacklogReportingSources}. Any other
 * provider is returned as it is, and its source reports no backlog of ours.
 */
public final class BacklogReportingScanSource implements ScanTableSource {

    private final ScanTableSource source;

    private BacklogReportingScanSource(ScanTableSource source) {
        this.source = checkNotNull(source);
    }

    /** The source whose FLIP-27 source reports a backlog; a source that does already as it is. */
    public static ScanTableSource of(ScanTableSource source) {
        return source instanceof BacklogReportingScanSource
                ? source
                : new BacklogReportingScanSource(source);
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return source.getChangelogMode();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        ScanRuntimeProvider provider = source.getScanRuntimeProvider(context);
        if (provider instanceof SourceProvider) {
            SourceProvider sourceProvider = (SourceProvider) provider;
            return SourceProvider.of(
                    CaughtUpBacklog.wrap(sourceProvider.createSource()),
                    sourceProvider.getParallelism().orElse(null));
        }
        if (provider instanceof DataStreamScanProvider) {
            return new StreamProvider((DataStreamScanProvider) provider);
        }
        return provider;
    }

    @Override
    public DynamicTableSource copy() {
        return new BacklogReportingScanSource((ScanTableSource) source.copy());
    }

    @Override
    public String asSummaryString() {
        return source.asSummaryString();
    }

    private static final class StreamProvider implements DataStreamScanProvider {

        private final DataStreamScanProvider provider;

        StreamProvider(DataStreamScanProvider provider) {
            this.provider = provider;
        }

        @Override
        public DataStream<RowData> produceDataStream(
                ProviderContext providerContext, StreamExecutionEnvironment execEnv) {
            return BacklogReportingSources.wrap(
                    provider.produceDataStream(providerContext, execEnv), execEnv);
        }

        @Override
        public boolean isBounded() {
            return provider.isBounded();
        }

        @Override
        public Optional<Integer> getParallelism() {
            return provider.getParallelism();
        }
    }
}
