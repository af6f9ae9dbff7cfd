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
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;

import java.util.List;

/**
 * The {@code 'test-sequence'} connector: an append-only, unbounded table of one BIGINT column whose
 * numbers a {@link SequenceGate} releases ({@code 'gate' = '<id>'}), replayed from checkpoints like
 * a log. Computed columns, the rowtime and the watermark are declared in the DDL as usual. The
 * source runs with the job's parallelism.
 */
public final class SequenceTableFactory extends RegistryTableFactory
        implements DynamicTableSourceFactory {

    public static final String IDENTIFIER = "test-sequence";

    static final ConfigOption<String> GATE =
            idOption("gate", "Id of the SequenceGate that releases the numbers.");

    public SequenceTableFactory() {
        super(IDENTIFIER, GATE);
    }

    /** The options of a table whose numbers the gate releases. */
    public static String options(SequenceGate gate) {
        return tableOptions(IDENTIFIER, GATE, gate.id());
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        ReadableConfig options = validatedOptions(context);
        List<LogicalType> physical =
                context.getPhysicalRowDataType().getLogicalType().getChildren();
        if (physical.size() != 1 || !physical.get(0).copy(true).equals(new BigIntType())) {
            throw new ValidationException(
                    "A 'test-sequence' table has exactly one physical column, of type BIGINT.");
        }
        return new SequenceTableSource(options.get(GATE));
    }

    private static final class SequenceTableSource implements ScanTableSource {
        private final String gateId;

        SequenceTableSource(String gateId) {
            this.gateId = gateId;
        }

        @Override
        public ChangelogMode getChangelogMode() {
            return ChangelogMode.insertOnly();
        }

        @Override
        public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
            return SourceProvider.of(new SequenceSource(gateId));
        }

        @Override
        public DynamicTableSource copy() {
            return new SequenceTableSource(gateId);
        }

        @Override
        public String asSummaryString() {
            return "SequenceTableSource";
        }
    }
}
