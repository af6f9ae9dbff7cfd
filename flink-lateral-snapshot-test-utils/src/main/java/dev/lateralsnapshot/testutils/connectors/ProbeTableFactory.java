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

package dev.lateralsnapshot.testutils.connectors;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.types.DataType;

/**
 * The {@code 'test-probe'} connector: an append-only, unbounded table whose rows a test emits
 * through a {@link ProbeChannel} ({@code 'channel' = '<id>'}). The source runs with the channel's
 * parallelism. Declare the rowtime and watermark in the DDL as usual.
 *
 * <p>With {@code 'changelog' = 'true'} the table is a changelog without primary key instead (+I,
 * -U, +U, -D, from {@code Row.ofKind}), for a build side. Flink lets only a source with a primary
 * key choose the parallelism of a changelog, so such a source runs with the job's parallelism, and
 * the channel must be opened with that; hand a build side's rows to one subtask ({@link
 * ProbeChannel#emitTo}), so that a -U and its +U arrive in order. Nothing is checkpointed either
 * way, so a savepoint of a job that reads the table holds no path or offset of the test run.
 */
public final class ProbeTableFactory extends RegistryTableFactory
        implements DynamicTableSourceFactory {

    public static final String IDENTIFIER = "test-probe";

    static final ConfigOption<String> CHANNEL =
            idOption("channel", "Id of the ProbeChannel that feeds the table.");

    static final ConfigOption<Boolean> CHANGELOG =
            ConfigOptions.key("changelog")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription("Whether the rows carry change kinds: +I, -U, +U, -D.");

    public ProbeTableFactory() {
        super(IDENTIFIER, CHANNEL, CHANGELOG);
    }

    /** The options of an append-only table that the channel feeds. */
    public static String options(ProbeChannel channel) {
        return tableOptions(IDENTIFIER, CHANNEL, channel.id());
    }

    /** The options of a changelog table that the channel feeds, for a build side. */
    public static String changelogOptions(ProbeChannel channel) {
        return options(channel) + ", '" + CHANGELOG.key() + "' = 'true'";
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        ReadableConfig options = validatedOptions(context);
        return new ProbeTableSource(
                options.get(CHANNEL), context.getPhysicalRowDataType(), options.get(CHANGELOG));
    }

    private static final class ProbeTableSource implements ScanTableSource {
        private final String channelId;
        private final DataType physicalType;
        private final boolean changelog;

        ProbeTableSource(String channelId, DataType physicalType, boolean changelog) {
            this.channelId = channelId;
            this.physicalType = physicalType;
            this.changelog = changelog;
        }

        @Override
        public ChangelogMode getChangelogMode() {
            return changelog ? ChangelogMode.all() : ChangelogMode.insertOnly();
        }

        @Override
        public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
            ChannelSource<RowData> source =
                    ChannelSource.ofTable(
                            channelId, context.createDataStructureConverter(physicalType));
            return changelog
                    ? SourceProvider.of(source)
                    : SourceProvider.of(source, ProbeChannel.get(channelId).parallelism());
        }

        @Override
        public DynamicTableSource copy() {
            return new ProbeTableSource(channelId, physicalType, changelog);
        }

        @Override
        public String asSummaryString() {
            return "ProbeTableSource";
        }
    }
}
