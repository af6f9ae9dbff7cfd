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

package dev.lateralsnapshot.runtime.operators.join.snapshot;

import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinSpec.Distribution;

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.forst.ForStStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributesBuilder;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import javax.annotation.Nullable;

import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What the operator's harness tests share: the join under test ({@link JoinSpec}), harnesses of it
 * on the test's distribution and state backend, and rows written and read as text.
 *
 * <p>Output is compared as text: records as {@code +I(o1,A,A,1,10)} (timestamps in epoch millis),
 * watermarks as {@code WM(5)}, watermark statuses as {@code IDLE} / {@code ACTIVE}. Metrics are
 * looked up by the names the Metrics section of {@code docs/lateral-snapshot-join.md} gives them,
 * written out rather than taken from {@link LateralSnapshotJoinMetrics}, so that renaming one fails
 * a test.
 */
public abstract class JoinTestSupport {

    /** The state backends every test runs on. */
    public enum Backend {
        HEAP,
        ROCKSDB,
        /** Snapshots and restores take another path than full RocksDB snapshots. */
        ROCKSDB_INCREMENTAL,
        /** Flink's disaggregated backend, on the local file system, through the keyed state API. */
        FORST
    }

    public static final int MAX_PARALLELISM = JoinHarness.MAX_PARALLELISM;
    public static final long LOAD_COMPLETED_TIME = JoinSpec.LOAD_COMPLETED_TIME;
    public static final LogicalType STRING = JoinSpec.STRING;
    public static final RowType PROBE_TYPE = JoinSpec.PROBE_TYPE;
    public static final RowType BUILD_TYPE = JoinSpec.BUILD_TYPE;

    /** The distribution of the build side that the test runs, unless its spec fixes one. */
    public abstract Distribution distribution();

    public abstract Backend backend();

    public static JoinSpec join() {
        return new JoinSpec();
    }

    /** A harness for a single subtask, set up but not opened. */
    public JoinHarness harness(JoinSpec spec) throws Exception {
        return harness(spec, 1, 0);
    }

    /** A harness for one subtask of a parallel join, set up but not opened. */
    public JoinHarness harness(JoinSpec spec, int parallelism, int subtaskIndex) throws Exception {
        return new JoinHarness(
                spec, distributionOf(spec), createStateBackend(), parallelism, subtaskIndex);
    }

    /** The subtasks of a join at a parallelism, restored from snapshots of any when given. */
    public JoinSubtasks subtasks(
            JoinSpec spec, int parallelism, @Nullable OperatorSubtaskState[] snapshots)
            throws Exception {
        return new JoinSubtasks(
                spec,
                distributionOf(spec),
                parallelism,
                snapshots,
                subtask -> harness(spec, parallelism, subtask));
    }

    public Distribution distributionOf(JoinSpec spec) {
        return spec.distribution == null ? distribution() : spec.distribution;
    }

    public StateBackend createStateBackend() {
        switch (backend()) {
            case HEAP:
                return new HashMapStateBackend();
            case ROCKSDB:
                return new EmbeddedRocksDBStateBackend(false);
            case ROCKSDB_INCREMENTAL:
                return new EmbeddedRocksDBStateBackend(true);
            case FORST:
                return new ForStStateBackend();
            default:
                throw new IllegalStateException("Unknown backend " + backend());
        }
    }

    // ---- rows ----

    public static StreamRecord<RowData> probe(String id, @Nullable String currency) {
        return record(RowKind.INSERT, id, currency);
    }

    public static StreamRecord<RowData> insert(@Nullable String currency, int rate, long time) {
        return record(RowKind.INSERT, currency, rate, at(time));
    }

    public static StreamRecord<RowData> updateBefore(String currency, int rate, long time) {
        return record(RowKind.UPDATE_BEFORE, currency, rate, at(time));
    }

    public static StreamRecord<RowData> updateAfter(String currency, int rate, long time) {
        return record(RowKind.UPDATE_AFTER, currency, rate, at(time));
    }

    public static StreamRecord<RowData> delete(String currency, int rate, long time) {
        return record(RowKind.DELETE, currency, rate, at(time));
    }

    public static TimestampData at(long epochMillis) {
        return TimestampData.fromEpochMillis(epochMillis);
    }

    /** A row of any type: strings become {@link StringData}, everything else stays as it is. */
    public static StreamRecord<RowData> record(RowKind kind, @Nullable Object... fields) {
        Object[] values =
                Arrays.stream(fields)
                        .map(f -> f instanceof String ? StringData.fromString((String) f) : f)
                        .toArray();
        return new StreamRecord<>(GenericRowData.ofKind(kind, values));
    }

    /** The attributes a source sends when it starts or ends a backlog. */
    public static RecordAttributes backlog(boolean isBacklog) {
        return new RecordAttributesBuilder(Collections.emptyList()).setBacklog(isBacklog).build();
    }

    public static Watermark watermark(long time) {
        return new Watermark(time);
    }

    /** A joined row of the standard join, as {@link JoinHarness#takeOutput()} prints it. */
    public static String joined(String id, String currency, int rate, long time) {
        return "+I(" + id + "," + currency + "," + currency + "," + rate + "," + time + ")";
    }

    /** A probe row of the standard LEFT join padded with NULLs. */
    public static String padded(String id, @Nullable String currency) {
        return "+I(" + id + "," + currency + ",null,null,null)";
    }

    /** Everything in a harness's output, as text, in order; the output is emptied. */
    public static List<String> takeFormatted(Collection<Object> output, RowType outputType) {
        List<String> out =
                output.stream()
                        .map(element -> format(element, outputType))
                        .collect(Collectors.toList());
        output.clear();
        return out;
    }

    private static String format(Object element, RowType outputType) {
        if (element instanceof StreamRecord) {
            return formatRow((RowData) ((StreamRecord<?>) element).getValue(), outputType);
        } else if (element instanceof Watermark) {
            return "WM(" + ((Watermark) element).getTimestamp() + ")";
        } else if (element instanceof WatermarkStatus) {
            return ((WatermarkStatus) element).isIdle() ? "IDLE" : "ACTIVE";
        } else if (element instanceof RecordAttributes) {
            return ((RecordAttributes) element).isBacklog() ? "BACKLOG" : "NO_BACKLOG";
        }
        return String.valueOf(element);
    }

    public static String formatRow(RowData row, RowType type) {
        List<LogicalType> fieldTypes = type.getChildren();
        String fields =
                Stream.iterate(0, i -> i + 1)
                        .limit(fieldTypes.size())
                        .map(i -> RowData.createFieldGetter(fieldTypes.get(i), i))
                        .map(getter -> formatField(getter.getFieldOrNull(row)))
                        .collect(Collectors.joining(","));
        return row.getRowKind().shortString() + "(" + fields + ")";
    }

    private static String formatField(@Nullable Object field) {
        if (field instanceof TimestampData) {
            return String.valueOf(((TimestampData) field).getMillisecond());
        }
        return String.valueOf(field);
    }
}
