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

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.RuntimeConverter;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.DynamicTableSink.DataStructureConverter;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;

import java.util.Set;

/**
 * The {@code 'test-collect'} connector: a sink that hands every row it receives, with its change
 * kind, to {@link CollectedRows} ({@code 'sink' = '<id>'}). It accepts any changelog, so that the
 * rows show whether the query's output really is insert-only.
 */
public final class CollectingTableFactory implements DynamicTableSinkFactory {

    public static final String IDENTIFIER = "test-collect";

    static final ConfigOption<String> SINK =
            ConfigOptions.key("sink")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Id of the CollectedRows that receive the rows.");

    /** The options of a sink table whose rows the collection receives. */
    public static String options(CollectedRows rows) {
        return "'connector' = '" + IDENTIFIER + "', '" + SINK.key() + "' = '" + rows.id() + "'";
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(SINK);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        return new CollectingTableSink(
                helper.getOptions().get(SINK), context.getPhysicalRowDataType());
    }

    private static final class CollectingTableSink implements DynamicTableSink {
        private final String sinkId;
        private final DataType physicalType;

        CollectingTableSink(String sinkId, DataType physicalType) {
            this.sinkId = sinkId;
            this.physicalType = physicalType;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return requestedMode;
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            return SinkV2Provider.of(
                    new CollectingSink(sinkId, context.createDataStructureConverter(physicalType)));
        }

        @Override
        public DynamicTableSink copy() {
            return new CollectingTableSink(sinkId, physicalType);
        }

        @Override
        public String asSummaryString() {
            return "CollectingTableSink";
        }
    }

    private static final class CollectingSink implements Sink<RowData> {
        private static final long serialVersionUID = 1L;

        private final String sinkId;
        private final DataStructureConverter converter;

        CollectingSink(String sinkId, DataStructureConverter converter) {
            this.sinkId = sinkId;
            this.converter = converter;
        }

        @Override
        public SinkWriter<RowData> createWriter(WriterInitContext context) {
            converter.open(
                    RuntimeConverter.Context.create(
                            context.getUserCodeClassLoader().asClassLoader()));
            CollectedRows rows = CollectedRows.get(sinkId);
            return new SinkWriter<>() {
                @Override
                public void write(RowData row, Context context) {
                    rows.add(converter.toExternal(row).toString());
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
