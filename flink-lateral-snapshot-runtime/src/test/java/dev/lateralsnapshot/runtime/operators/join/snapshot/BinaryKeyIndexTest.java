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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The index of the broadcast build side against a {@code HashMap} of the same binary keys: the
 * probe path reads only the index, so any key it loses, keeps too long or maps to another key's
 * value would be a wrong join result.
 */
class BinaryKeyIndexTest {

    private static final RowDataSerializer KEY_SERIALIZER =
            new RowDataSerializer(new BigIntType(), VarCharType.STRING_TYPE);

    @Test
    void agreesWithAHashMapThroughGrowthAndRemovals() {
        BinaryKeyIndex<Integer> index = new BinaryKeyIndex<>();
        Map<BinaryRowData, Integer> expected = new HashMap<>();
        Random random = new Random(42);
        for (int step = 0; step < 200_000; step++) {
            // Few enough keys that removals often hit runs of colliding slots.
            BinaryRowData key = key(random.nextInt(5_000), random.nextInt(3));
            int action = random.nextInt(10);
            if (action < 5) {
                index.put(key, step);
                expected.put(key, step);
            } else if (action < 8) {
                index.remove(key);
                expected.remove(key);
            } else {
                assertThat(index.get(key)).as("step %d", step).isEqualTo(expected.get(key));
            }
        }
        assertThat(index.size()).isEqualTo(expected.size());
        for (int k = 0; k < 5_000; k++) {
            for (int suffix = 0; suffix < 3; suffix++) {
                BinaryRowData key = key(k, suffix);
                assertThat(index.get(key)).as("key %d/%d", k, suffix).isEqualTo(expected.get(key));
            }
        }
    }

    @Test
    void clearForgetsEveryKeyAndTakesNewOnes() {
        BinaryKeyIndex<Boolean> index = new BinaryKeyIndex<>();
        for (int k = 0; k < 1_000; k++) {
            index.put(key(k, 0), true);
        }
        index.clear();
        assertThat(index.size()).isZero();
        assertThat(index.get(key(1, 0))).isNull();
        index.put(key(1, 0), true);
        assertThat(index.get(key(1, 0))).isTrue();
        assertThat(index.get(key(2, 0))).isNull();
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
