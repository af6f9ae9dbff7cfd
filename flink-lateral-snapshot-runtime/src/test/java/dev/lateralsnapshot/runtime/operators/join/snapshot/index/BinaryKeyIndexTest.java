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

package dev.lateralsnapshot.runtime.operators.join.snapshot.index;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The index of the build rows against a {@code HashMap} of the same binary keys: the probe path
 * reads only the index, so any key it loses, keeps too long or maps to another key's value would be
 * a wrong join result, and a stamp it keeps for a key put anew would keep the TTL clock from
 * refreshing the key.
 */
class BinaryKeyIndexTest {

    private static final RowDataSerializer ONE_BIGINT = new RowDataSerializer(new BigIntType());

    private static final RowDataSerializer KEY_SERIALIZER =
            new RowDataSerializer(new BigIntType(), VarCharType.STRING_TYPE);

    private final BinaryKeyIndex<Integer> index = new BinaryKeyIndex<>(true);

    @Test
    void agreesWithAHashMapThroughGrowthAndRemovals() {
        // Few enough keys that removals often hit runs of colliding slots.
        agreesWithAHashMap(random -> key(random.nextInt(5_000), random.nextInt(3)));
        for (int k = 0; k < 5_000; k++) {
            for (int suffix = 0; suffix < 3; suffix++) {
                assertThat(index.get(key(k, suffix))).as("key %d/%d", k, suffix).isNull();
            }
        }
    }

    @Test
    void agreesWithAHashMapForKeysHeldInPlaceAndOthers() {
        agreesWithAHashMap(
                random -> {
                    int id = random.nextInt(3_000);
                    switch (random.nextInt(3)) {
                        case 0:
                            // Sixteen bytes, held in place; NULL and 0 are two keys.
                            return bigint(id == 0 ? null : (long) id);
                        case 1:
                            // Sixteen bytes too, with the value in the high bits.
                            return bigint((long) id << 40);
                        default:
                            return key(id, id % 3);
                    }
                });
    }

    /**
     * Puts, removes, stamps and gets random keys, against a {@code HashMap} of the values and one
     * of the stamps, then checks every key: a key keeps its stamp through the moves of the keys
     * around it, as long as it is held, and a key put anew has none.
     */
    private void agreesWithAHashMap(Function<Random, BinaryRowData> keys) {
        Map<BinaryRowData, Integer> expected = new HashMap<>();
        Map<BinaryRowData, Long> stamps = new HashMap<>();
        Random random = new Random(42);
        for (int step = 0; step < 200_000; step++) {
            BinaryRowData key = keys.apply(random);
            int action = random.nextInt(10);
            if (action < 5) {
                index.put(key, step);
                expected.put(key, step);
            } else if (action < 7) {
                index.remove(key);
                expected.remove(key);
                stamps.remove(key);
            } else if (action < 8) {
                index.setStamp(key, step);
                if (expected.containsKey(key)) {
                    stamps.put(key, (long) step);
                }
            } else {
                assertThat(index.get(key)).as("step %d", step).isEqualTo(expected.get(key));
                assertThat(index.stamp(key))
                        .as("step %d", step)
                        .isEqualTo(stamps.getOrDefault(key, BinaryKeyIndex.NO_STAMP));
            }
        }
        assertThat(index.size()).isEqualTo(expected.size());
        for (Map.Entry<BinaryRowData, Integer> entry : expected.entrySet()) {
            assertThat(index.get(entry.getKey())).isEqualTo(entry.getValue());
            assertThat(index.containsKey(entry.getKey())).isTrue();
            assertThat(index.stamp(entry.getKey()))
                    .isEqualTo(stamps.getOrDefault(entry.getKey(), BinaryKeyIndex.NO_STAMP));
        }
        expected.keySet().forEach(index::remove);
        assertThat(index.size()).isZero();
    }

    @Test
    void clearForgetsEveryKeyAndTakesNewOnes() {
        BinaryKeyIndex<Boolean> index = new BinaryKeyIndex<>();
        for (int k = 0; k < 1_000; k++) {
            index.put(key(k, 0), true);
            index.put(bigint((long) k), true);
        }
        index.clear();
        assertThat(index.size()).isZero();
        assertThat(index.get(key(1, 0))).isNull();
        assertThat(index.get(bigint(1L))).isNull();
        index.put(key(1, 0), true);
        index.put(bigint(1L), true);
        assertThat(index.get(key(1, 0))).isTrue();
        assertThat(index.get(bigint(1L))).isTrue();
        assertThat(index.get(key(2, 0))).isNull();
        assertThat(index.get(bigint(2L))).isNull();
        assertThat(index.size()).isEqualTo(2);
    }

    @Test
    void findsAKeyWhateverSegmentsItsBytesAreIn() {
        BinaryKeyIndex<String> index = new BinaryKeyIndex<>();
        BinaryRowData stored = key(7, 1);
        index.put(stored, "seven");

        // The same bytes behind an offset in a larger segment, and split over two segments.
        byte[] bytes = bytes(stored);
        byte[] padded = new byte[bytes.length + 24];
        System.arraycopy(bytes, 0, padded, 16, bytes.length);
        BinaryRowData atOffset = new BinaryRowData(2);
        atOffset.pointTo(MemorySegmentFactory.wrap(padded), 16, bytes.length);
        int half = 16;
        byte[] first = new byte[half];
        byte[] second = new byte[bytes.length - half];
        System.arraycopy(bytes, 0, first, 0, half);
        System.arraycopy(bytes, half, second, 0, second.length);
        BinaryRowData split = new BinaryRowData(2);
        split.pointTo(
                new MemorySegment[] {
                    MemorySegmentFactory.wrap(first), MemorySegmentFactory.wrap(second)
                },
                0,
                bytes.length);

        assertThat(index.get(atOffset)).isEqualTo("seven");
        assertThat(index.get(split)).isEqualTo("seven");
        assertThat(index.get(key(7, 2))).isNull();

        // A key kept from a row that does not own its bytes is copied: changing them later
        // changes nothing in the index.
        index.put(atOffset, "seven again");
        index.remove(stored);
        index.put(atOffset, "kept");
        System.arraycopy(bytes(key(8, 1)), 0, padded, 16, bytes.length);
        assertThat(index.get(stored)).isEqualTo("kept");
    }

    private static BinaryRowData bigint(Long value) {
        return ONE_BIGINT.toBinaryRow(GenericRowData.of(value)).copy();
    }

    private static BinaryRowData key(long id, int suffix) {
        // A string longer than 7 bytes, so that the key has a variable-length part.
        return KEY_SERIALIZER
                .toBinaryRow(GenericRowData.of(id, StringData.fromString("customer-" + suffix)))
                .copy();
    }

    private static byte[] bytes(BinaryRowData row) {
        byte[] bytes = new byte[row.getSizeInBytes()];
        row.getSegments()[0].get(row.getOffset(), bytes, 0, bytes.length);
        return bytes;
    }
}
