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

import dev.lateralsnapshot.runtime.operators.join.snapshot.index.BinaryKeyIndex;

import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.writer.BinaryRowWriter;

import com.carrotsearch.hppc.ObjectObjectHashMap;
import it.unimi.dsi.fastutil.Hash;
import it.unimi.dsi.fastutil.objects.Object2ObjectOpenCustomHashMap;
import org.agrona.collections.Object2ObjectHashMap;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.HashMap;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The lookup of a probe row's key among the build keys, the one hash lookup on the probe path of
 * the join on the heap: the join's own {@link BinaryKeyIndex} against the open hash maps of
 * fastutil (with a strategy over the key's bytes), HPPC and Agrona, and {@code java.util.HashMap}.
 * Each lookup takes a fresh key row, as the planner's key selector makes one per probe row, and
 * reads the value found, as the probe reads the build rows.
 *
 * <p>Keys are one column: {@code BIGINT} (a key row of sixteen bytes, which the index holds in
 * place) or a {@code STRING} of 16 characters (which it keeps as bytes beside the value). 90 % of
 * the lookups hit. {@code docs/benchmarks-notes.md} ("The index of the build keys against the
 * libraries") has the figures and what they mean for the probe rows per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@State(Scope.Thread)
public class KeyIndexBenchmark {

    static final int LOOKUPS = 10_000;

    /** Key rows are one column of this type. */
    public enum KeyType {
        BIGINT,
        STRING
    }

    @Param({"100000", "1000000"})
    public int keys;

    @Param({"BIGINT", "STRING"})
    public KeyType keyType;

    private BinaryRowData[] probeKeys;
    private int next;

    private BinaryKeyIndex<Object> index;
    private Object2ObjectOpenCustomHashMap<BinaryRowData, Object> fastutil;
    private ObjectObjectHashMap<BinaryRowData, Object> hppc;
    private Object2ObjectHashMap<BinaryRowData, Object> agrona;
    private HashMap<BinaryRowData, Object> hashMap;

    /** Hashes and compares key rows by their bytes, wherever the bytes are. */
    private static final Hash.Strategy<BinaryRowData> BYTES =
            new Hash.Strategy<>() {
                @Override
                public int hashCode(BinaryRowData key) {
                    return key == null
                            ? 0
                            : BinarySegmentUtils.hashByWords(
                                    key.getSegments(), key.getOffset(), key.getSizeInBytes());
                }

                @Override
                public boolean equals(BinaryRowData a, BinaryRowData b) {
                    return a == b || (a != null && a.equals(b));
                }
            };

    @Setup(Level.Trial)
    public void setUp() {
        index = new BinaryKeyIndex<>();
        fastutil = new Object2ObjectOpenCustomHashMap<>(BYTES);
        hppc = new ObjectObjectHashMap<>();
        agrona = new Object2ObjectHashMap<>();
        hashMap = new HashMap<>();
        for (int k = 0; k < keys; k++) {
            // The value is a row of its own, allocated with the key as the build side's are.
            Object value = keyRow(-k - 1);
            index.put(keyRow(k), value);
            fastutil.put(keyRow(k), value);
            hppc.put(keyRow(k), value);
            agrona.put(keyRow(k), value);
            hashMap.put(keyRow(k), value);
        }
        Random random = new Random(42);
        probeKeys = new BinaryRowData[1 << 20];
        for (int i = 0; i < probeKeys.length; i++) {
            probeKeys[i] = keyRow(random.nextInt(keys * 10 / 9));
        }
    }

    private BinaryRowData keyRow(long key) {
        BinaryRowData row = new BinaryRowData(1);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        if (keyType == KeyType.BIGINT) {
            writer.writeLong(0, key);
        } else {
            writer.writeString(0, StringData.fromString(String.format("key-%012d", key)));
        }
        writer.complete();
        return row;
    }

    /** The next fresh key row: a copy, as the key selector makes one per probe row. */
    private BinaryRowData nextKey() {
        BinaryRowData key = probeKeys[next].copy();
        next = (next + 1) & (probeKeys.length - 1);
        return key;
    }

    /** Reads the value found, as the probe reads the build row; returns something to consume. */
    private static int read(Object value) {
        return value == null ? 0 : ((BinaryRowData) value).getSizeInBytes();
    }

    @Benchmark
    @OperationsPerInvocation(LOOKUPS)
    public long binaryKeyIndex() {
        long sum = 0;
        for (int i = 0; i < LOOKUPS; i++) {
            sum += read(index.get(nextKey()));
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(LOOKUPS)
    public long fastutilCustomStrategy() {
        long sum = 0;
        for (int i = 0; i < LOOKUPS; i++) {
            sum += read(fastutil.get(nextKey()));
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(LOOKUPS)
    public long hppc() {
        long sum = 0;
        for (int i = 0; i < LOOKUPS; i++) {
            sum += read(hppc.get(nextKey()));
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(LOOKUPS)
    public long agrona() {
        long sum = 0;
        for (int i = 0; i < LOOKUPS; i++) {
            sum += read(agrona.get(nextKey()));
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(LOOKUPS)
    public long javaHashMap() {
        long sum = 0;
        for (int i = 0; i < LOOKUPS; i++) {
            sum += read(hashMap.get(nextKey()));
        }
        return sum;
    }
}
