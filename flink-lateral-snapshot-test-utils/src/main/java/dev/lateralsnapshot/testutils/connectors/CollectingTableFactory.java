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
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.types.DataType;

/**
 * The {@code 'test-collect'} connector: a {@link CollectingSink} that hands every row it receives,
 * with its change kind, to {@link CollectedRows} ({@code 'sink' = '<id>'}). It accepts any
 * changelog, so that the rows show whether the query's output really is insert-only.
 */
public final class CollectingTableFactory extends RegistryTableFactory
        implements DynamicTableSinkFactory {

    public static final String IDENTIFIER = "test-collect";

    static final ConfigOption<String> SINK =
            idOption("sink", "Id of the CollectedRows that receive the rows.");

    public CollectingTableFactory() {
        super(IDENTIFIER, SINK);
    }

    /** The options of a sink table whose rows the collection receives. */
    public static String options(CollectedRows rows) {
        return tableOptions(IDENTIFIER, SINK, rows.id());
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        return new CollectingTableSink(
                validatedOptions(context).get(SINK), context.getPhysicalRowDataType());
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
                    CollectingSink.ofTable(
                            sinkId, context.createDataStructureConverter(physicalType)));
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
}
