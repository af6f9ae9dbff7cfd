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
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The set of keys a TTL clock remembers as refreshed, against a {@code HashSet} of the same binary
 * keys: a key it reports that was never added would keep its kept time from being moved on, and the
 * key would be evicted while probe rows still find it.
 */
class BinaryKeySetTest {

    private static final RowDataSerializer ONE_BIGINT = new RowDataSerializer(new BigIntType());
    private static final RowDataSerializer ONE_STRING =
            new RowDataSerializer(VarCharType.STRING_TYPE);
    private static final RowDataSerializer TWO_INTS =
            new RowDataSerializer(new IntType(), new IntType());
    private static final RowDataSerializer NO_FIELDS = new RowDataSerializer();

    @Test
    void agreesWithAHashSetForKeysHeldInPlaceAndOthers() {
        BinaryKeySet set = new BinaryKeySet();
        Set<BinaryRowData> expected = new HashSet<>();
        Random random = new Random(7);
        for (int step = 0; step < 300_000; step++) {
            BinaryRowData key = anyKey(random);
            int action = random.nextInt(100);
            if (action < 45) {
                set.add(key);
                expected.add(key);
            } else if (action < 99) {
                assertThat(set.contains(key))
                        .as("step %d: %s", step, key)
                        .isEqualTo(expected.contains(key));
            } else if (random.nextInt(20) == 0) {
                set.clear();
                expected.clear();
            }
            assertThat(set.size()).as("step %d", step).isEqualTo(expected.size());
        }
    }

    @Test
    void aKeyHeldInPlaceIsFoundWhateverSegmentsItsBytesAreIn() {
        BinaryKeySet set = new BinaryKeySet();
        BinaryRowData stored = bigint(42L);
        set.add(stored);
        byte[] bytes = new byte[stored.getSizeInBytes()];
        stored.getSegments()[0].get(stored.getOffset(), bytes, 0, bytes.length);

        byte[] padded = new byte[bytes.length + 20];
        System.arraycopy(bytes, 0, padded, 12, bytes.length);
        BinaryRowData atOffset = new BinaryRowData(1);
        atOffset.pointTo(MemorySegmentFactory.wrap(padded), 12, bytes.length);

        // Split inside the field, so that a word is read across the two segments.
        byte[] first = new byte[11];
        byte[] second = new byte[bytes.length - first.length];
        System.arraycopy(bytes, 0, first, 0, first.length);
        System.arraycopy(bytes, first.length, second, 0, second.length);
        BinaryRowData split = new BinaryRowData(1);
        split.pointTo(
                new MemorySegment[] {
                    MemorySegmentFactory.wrap(first), MemorySegmentFactory.wrap(second)
                },
                0,
                bytes.length);

        assertThat(set.contains(atOffset)).isTrue();
        assertThat(set.contains(split)).isTrue();
        set.add(split);
        assertThat(set.size()).isEqualTo(1);
        assertThat(set.contains(bigint(43L))).isFalse();
    }

    @Test
    void aNullKeyAndAZeroKeyAreTwoKeys() {
        BinaryKeySet set = new BinaryKeySet();
        set.add(bigint(0L));
        assertThat(set.contains(bigint(0L))).isTrue();
        assertThat(set.contains(bigint(null))).isFalse();
        set.add(bigint(null));
        assertThat(set.size()).isEqualTo(2);
    }

    /** Keys of sixteen bytes (one BIGINT, a short string), and of other sizes. */
    private static BinaryRowData anyKey(Random random) {
        int id = random.nextInt(20_000);
        switch (random.nextInt(5)) {
            case 0:
                return bigint(id == 0 ? null : (long) id);
            case 1:
                return bigint((long) id << 40);
            case 2:
                return ONE_STRING
                        .toBinaryRow(GenericRowData.of(StringData.fromString("c" + (id % 5_000))))
                        .copy();
            case 3:
                return TWO_INTS.toBinaryRow(GenericRowData.of(id % 300, id % 7)).copy();
            default:
                return id % 2 == 0
                        ? NO_FIELDS.toBinaryRow(new GenericRowData(0)).copy()
                        : ONE_STRING
                                .toBinaryRow(
                                        GenericRowData.of(StringData.fromString("customer-" + id)))
                                .copy();
        }
    }

    private static BinaryRowData bigint(Long value) {
        return ONE_BIGINT.toBinaryRow(GenericRowData.of(value)).copy();
    }
}
