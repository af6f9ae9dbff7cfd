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

import dev.lateralsnapshot.runtime.internal.StoreKeyOrder;

import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.SerializedCompositeKeyBuilder;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.VarCharType;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The sort of the puts that the load holds before it writes them to RocksDB or ForSt, in the
 * store's order of keys: the join's {@link StoreKeyOrder} against {@code List.sort} of the puts by
 * their keys' unsigned bytes (a TimSort of objects, as the held writes did before).
 *
 * <p>A batch is 32,768 puts of buffered probe rows, as the probe buffer's map state keys them in
 * the store: the key group, the key row, the namespace and a map key, each with a value of about a
 * probe row's size. Key rows are one column, a {@code BIGINT} or a {@code STRING} of 9 to 28
 * characters, over 1M keys and 128 key groups. Each invocation sorts a batch that the ones before
 * have not touched, so that the sort meets its keys in memory as the held writes do, and then reads
 * every put in the order found, as the write does. {@code docs/benchmarks-notes.md} ("The sort of
 * the load's held writes, by numbers instead of keys") has the figures.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
@State(Scope.Thread)
public class StoreKeyOrderBenchmark {

    static final int PUTS = 32_768;

    /** Batches made up front; a multiple of the ones used in one iteration is never in cache. */
    static final int BATCHES = 64;

    private static final int KEY_GROUPS = 128;

    private static final Comparator<Put> BY_KEY =
            Comparator.comparing(Put::key, Arrays::compareUnsigned);

    /** Key rows are one column of this type. */
    public enum KeyType {
        BIGINT,
        STRING
    }

    @Param({"BIGINT", "STRING"})
    public KeyType keyType;

    private List<List<Put>> batches;
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        LogicalType type = keyType == KeyType.BIGINT ? new BigIntType() : new VarCharType(64);
        SerializedCompositeKeyBuilder<RowData> storeKeys =
                new SerializedCompositeKeyBuilder<>(new RowDataSerializer(type), 1, 32);
        Random random = new Random(42);
        batches = new ArrayList<>();
        long mapKey = 0;
        for (int b = 0; b < BATCHES; b++) {
            List<Put> batch = new ArrayList<>(PUTS);
            for (int i = 0; i < PUTS; i++) {
                BinaryRowData key = keyRow(random.nextInt(1_000_000), random);
                storeKeys.setKeyAndKeyGroup(
                        key, KeyGroupRangeAssignment.assignToKeyGroup(key, KEY_GROUPS));
                byte[] storeKey =
                        storeKeys.buildCompositeKeyNamesSpaceUserKey(
                                VoidNamespace.INSTANCE,
                                VoidNamespaceSerializer.INSTANCE,
                                mapKey++,
                                LongSerializer.INSTANCE);
                batch.add(new Put(storeKey, new byte[80 + random.nextInt(40)]));
            }
            batches.add(batch);
        }
    }

    private BinaryRowData keyRow(long key, Random random) {
        BinaryRowData row = new BinaryRowData(1);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        if (keyType == KeyType.BIGINT) {
            writer.writeLong(0, key);
        } else {
            String digits = Long.toString(key);
            writer.writeString(
                    0,
                    StringData.fromString(
                            "c-" + "0".repeat(random.nextInt(15)) + digits + "-x".repeat(3)));
        }
        writer.complete();
        return row;
    }

    private List<Put> nextBatch() {
        List<Put> batch = batches.get(next);
        next = (next + 1) % BATCHES;
        return batch;
    }

    @Benchmark
    public long storeKeyOrder() {
        List<Put> batch = nextBatch();
        List<byte[]> keys = new ArrayList<>(batch.size());
        for (Put put : batch) {
            keys.add(put.key);
        }
        long read = 0;
        for (int index : StoreKeyOrder.sort(keys)) {
            Put put = batch.get(index);
            read += put.key[0] + put.value.length;
        }
        return read;
    }

    @Benchmark
    public long listSort() {
        List<Put> sorted = new ArrayList<>(nextBatch());
        sorted.sort(BY_KEY);
        long read = 0;
        for (Put put : sorted) {
            read += put.key[0] + put.value.length;
        }
        return read;
    }

    /** A put held: its store key and value. */
    private record Put(byte[] key, byte[] value) {}
}
