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

package dev.lateralsnapshot.benchmark;

import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideDistribution;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideLayout;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinOperator;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinParameters;
import dev.lateralsnapshot.runtime.operators.join.snapshot.broadcast.BroadcastDistribution;
import dev.lateralsnapshot.runtime.operators.join.snapshot.keyed.HashDistribution;

import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.runtime.generated.GeneratedProjection;
import org.apache.flink.table.runtime.keyselector.BinaryRowDataKeySelector;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;

/**
 * The join both benchmarks drive: {@code probe(k BIGINT, payload STRING) JOIN LATERAL
 * SNAPSHOT(build(k BIGINT, name STRING, on_time TIMESTAMP(3))) ON probe.k = build.k}, an inner join
 * on one BIGINT key without further condition, on the heap state backend.
 */
final class JoinFixture {

    static final RowType PROBE_TYPE =
            RowType.of(
                    new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE},
                    new String[] {"k", "payload"});

    static final RowType BUILD_TYPE =
            RowType.of(
                    new LogicalType[] {
                        new BigIntType(), VarCharType.STRING_TYPE, new TimestampType(3)
                    },
                    new String[] {"k", "name", "on_time"});

    static final RowType KEY_TYPE =
            RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"k"});

    static final RowType OUTPUT_TYPE =
            RowType.of(
                    new LogicalType[] {
                        new BigIntType(),
                        VarCharType.STRING_TYPE,
                        new BigIntType(),
                        VarCharType.STRING_TYPE,
                        new TimestampType(3)
                    },
                    new String[] {"k", "payload", "k0", "name", "on_time"});

    static final int BUILD_TIME_INDEX = 2;

    private JoinFixture() {}

    /**
     * The key selector the planner would give both inputs: a generated projection of the key column
     * into a {@link BinaryRowData}, compiled by Janino, copied per record by {@link
     * BinaryRowDataKeySelector}. The code is what Flink's ProjectionCodeGenerator emits for one
     * BIGINT field, without its variable-name noise.
     */
    static BinaryRowDataKeySelector keySelector(String className) {
        String code =
                "public class "
                        + className
                        + " implements org.apache.flink.table.runtime.generated.Projection<"
                        + "org.apache.flink.table.data.RowData,"
                        + " org.apache.flink.table.data.binary.BinaryRowData> {\n"
                        + "  final org.apache.flink.table.data.binary.BinaryRowData out ="
                        + " new org.apache.flink.table.data.binary.BinaryRowData(1);\n"
                        + "  final org.apache.flink.table.data.writer.BinaryRowWriter outWriter ="
                        + " new org.apache.flink.table.data.writer.BinaryRowWriter(out);\n"
                        + "  public "
                        + className
                        + "(Object[] references) {}\n"
                        + "  public org.apache.flink.table.data.binary.BinaryRowData apply("
                        + "org.apache.flink.table.data.RowData in1) {\n"
                        + "    outWriter.reset();\n"
                        + "    if (in1.isNullAt(0)) {\n"
                        + "      outWriter.setNullAt(0);\n"
                        + "    } else {\n"
                        + "      outWriter.writeLong(0, in1.getLong(0));\n"
                        + "    }\n"
                        + "    outWriter.complete();\n"
                        + "    return out;\n"
                        + "  }\n"
                        + "}\n";
        return new BinaryRowDataKeySelector(
                InternalTypeInfo.of(KEY_TYPE),
                new GeneratedProjection(className, code, new Object[0]));
    }

    /** The operator of an INNER join on the key, its build side distributed as given. */
    static LateralSnapshotJoinOperator operator(
            BuildSideLayout layout, long loadCompletedTime, BuildSideDistribution distribution) {
        return new LateralSnapshotJoinOperator(
                LateralSnapshotJoinParameters.builder(
                                InternalTypeInfo.of(PROBE_TYPE),
                                InternalTypeInfo.of(BUILD_TYPE),
                                distribution)
                        .buildSideLayout(layout)
                        .filterNullKeys(new boolean[] {true})
                        .buildTime(BUILD_TIME_INDEX, 3)
                        .loadCompletedTime(loadCompletedTime)
                        .build());
    }

    /** An opened harness on the heap backend whose operator emits to the given output. */
    static KeyedTwoInputStreamOperatorTestHarness<RowData, RowData, RowData, RowData> openHarness(
            BuildSideLayout layout, long loadCompletedTime, Output<StreamRecord<RowData>> output)
            throws Exception {
        KeyedTwoInputStreamOperatorTestHarness<RowData, RowData, RowData, RowData> harness =
                new KeyedTwoInputStreamOperatorTestHarness<>(
                        operator(layout, loadCompletedTime, new HashDistribution()),
                        keySelector("ProbeKeyProjection"),
                        keySelector("BuildKeyProjection"),
                        InternalTypeInfo.of(KEY_TYPE));
        return opened(harness, output);
    }

    /**
     * An opened harness of the operator with a broadcast build side, as one subtask of the join
     * runs it, emitting to the given output.
     */
    static TwoInputStreamOperatorTestHarness<RowData, RowData, RowData> openBroadcastHarness(
            BuildSideLayout layout, long loadCompletedTime, Output<StreamRecord<RowData>> output)
            throws Exception {
        TwoInputStreamOperatorTestHarness<RowData, RowData, RowData> harness =
                new TwoInputStreamOperatorTestHarness<>(
                        operator(
                                layout,
                                loadCompletedTime,
                                new BroadcastDistribution(
                                        keySelector("ProbeKeyProjection"),
                                        keySelector("BuildKeyProjection"),
                                        0)));
        return opened(harness, output);
    }

    /** The harness on the heap backend, opened, its operator emitting to the given output. */
    private static <H extends TwoInputStreamOperatorTestHarness<RowData, RowData, RowData>>
            H opened(H harness, Output<StreamRecord<RowData>> output) throws Exception {
        harness.setStateBackend(new HashMapStateBackend());
        harness.setOutputCreator(serializer -> output);
        harness.setup();
        harness.open();
        return harness;
    }

    static BinaryRowData probeRow(long key, String payload) {
        BinaryRowData row = new BinaryRowData(2);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        writer.writeLong(0, key);
        writer.writeString(1, StringData.fromString(payload));
        writer.complete();
        return row;
    }

    static BinaryRowData buildRow(RowKind kind, long key, String name, long onTime) {
        BinaryRowData row = new BinaryRowData(3);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        writer.writeRowKind(kind);
        writer.writeLong(0, key);
        writer.writeString(1, StringData.fromString(name));
        writer.writeTimestamp(2, TimestampData.fromEpochMillis(onTime), 3);
        writer.complete();
        return row;
    }
}
