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

import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The benchmark's table connectors, so that every contender is plain SQL over the same tables:
 * {@code bench-probe} (the fact stream), {@code bench-build} (the reference changelog) and {@code
 * bench-sink} (discarding, measuring). Each names its run with the option {@code run}.
 */
final class BenchTableFactories {

    static final ConfigOption<String> RUN =
            ConfigOptions.key("run").stringType().noDefaultValue().withDescription("Run id.");

    static final String PROBE_COLUMNS = "[seq, k, amount, ts, src_nanos]";
    static final String BUILD_COLUMNS = "[k, rate, name, updated_at]";

    private BenchTableFactories() {}

    /** {@code bench-probe}: an insert-only scan of {@link ProbeSource}. */
    public static final class Probe extends ScanFactory {
        public Probe() {
            super("bench-probe", PROBE_COLUMNS, ChangelogMode.insertOnly(), ProbeSource::new);
        }
    }

    /** {@code bench-build}: a changelog scan of {@link BuildSource} (+I, -U, +U). */
    public static final class Build extends ScanFactory {
        public Build() {
            super(
                    "bench-build",
                    BUILD_COLUMNS,
                    ChangelogMode.newBuilder()
                            .addContainedKind(RowKind.INSERT)
                            .addContainedKind(RowKind.UPDATE_BEFORE)
                            .addContainedKind(RowKind.UPDATE_AFTER)
                            .build(),
                    BuildSource::changelog);
        }
    }

    /** {@code bench-build-upsert}: {@link BuildSource#upserts}, an upsert scan (+I, +U). */
    public static final class BuildUpserts extends ScanFactory {
        public BuildUpserts() {
            super(
                    "bench-build-upsert",
                    BUILD_COLUMNS,
                    ChangelogMode.upsert(),
                    BuildSource::upserts);
        }
    }

    /** A scan of one of the benchmark's sources, with the columns that source produces. */
    abstract static class ScanFactory implements DynamicTableSourceFactory {
        private final String identifier;
        private final String columns;
        private final ChangelogMode mode;
        private final Function<String, Source<RowData, ?, ?>> source;

        ScanFactory(
                String identifier,
                String columns,
                ChangelogMode mode,
                Function<String, Source<RowData, ?, ?>> source) {
            this.identifier = identifier;
            this.columns = columns;
            this.mode = mode;
            this.source = source;
        }

        @Override
        public String factoryIdentifier() {
            return identifier;
        }

        @Override
        public Set<ConfigOption<?>> requiredOptions() {
            return Set.of(RUN);
        }

        @Override
        public Set<ConfigOption<?>> optionalOptions() {
            return Set.of();
        }

        @Override
        public DynamicTableSource createDynamicTableSource(Context context) {
            FactoryUtil.TableFactoryHelper helper =
                    FactoryUtil.createTableFactoryHelper(this, context);
            helper.validate();
            checkColumns(context.getPhysicalRowDataType(), columns);
            return new Scan(mode, helper.getOptions().get(RUN), source, identifier);
        }
    }

    /** {@code bench-sink}: {@link BenchSink}; accepts any changelog. */
    public static final class Sink implements DynamicTableSinkFactory {
        @Override
        public String factoryIdentifier() {
            return "bench-sink";
        }

        @Override
        public Set<ConfigOption<?>> requiredOptions() {
            return Set.of(RUN);
        }

        @Override
        public Set<ConfigOption<?>> optionalOptions() {
            return Set.of();
        }

        @Override
        public DynamicTableSink createDynamicTableSink(Context context) {
            FactoryUtil.TableFactoryHelper helper =
                    FactoryUtil.createTableFactoryHelper(this, context);
            helper.validate();
            String run = helper.getOptions().get(RUN);
            List<String> names =
                    ((RowType) context.getPhysicalRowDataType().getLogicalType()).getFieldNames();
            int stamp = names.indexOf("src_nanos");
            if (stamp < 0) {
                throw new ValidationException("A bench-sink table needs a column src_nanos.");
            }
            return new TableSink(run, stamp);
        }
    }

    private static void checkColumns(DataType type, String expected) {
        String actual = ((RowType) type.getLogicalType()).getFieldNames().toString();
        if (!actual.equals(expected)) {
            throw new ValidationException(
                    "Expected the physical columns " + expected + " but got " + actual);
        }
    }

    private static final class Scan implements ScanTableSource {
        private final ChangelogMode mode;
        private final String run;
        private final Function<String, Source<RowData, ?, ?>> source;
        private final String name;

        Scan(
                ChangelogMode mode,
                String run,
                Function<String, Source<RowData, ?, ?>> source,
                String name) {
            this.mode = mode;
            this.run = run;
            this.source = source;
            this.name = name;
        }

        @Override
        public ChangelogMode getChangelogMode() {
            return mode;
        }

        @Override
        public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
            // The job's default parallelism; an explicit one is refused for changelog sources
            // without
            // a primary key.
            return SourceProvider.of(source.apply(run));
        }

        @Override
        public DynamicTableSource copy() {
            return new Scan(mode, run, source, name);
        }

        @Override
        public String asSummaryString() {
            return name;
        }
    }

    private static final class TableSink implements DynamicTableSink {
        private final String run;
        private final int stamp;

        TableSink(String run, int stamp) {
            this.run = run;
            this.stamp = stamp;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return requestedMode;
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            return SinkV2Provider.of(new BenchSink(run, stamp));
        }

        @Override
        public DynamicTableSink copy() {
            return new TableSink(run, stamp);
        }

        @Override
        public String asSummaryString() {
            return "BenchSink";
        }
    }
}
