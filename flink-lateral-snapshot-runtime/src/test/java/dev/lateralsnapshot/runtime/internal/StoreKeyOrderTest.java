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

package dev.lateralsnapshot.runtime.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Tests {@link StoreKeyOrder} against a stable sort of the keys by their unsigned bytes, which is
 * the order RocksDB and ForSt keep them in with their default comparator: the order of keys that
 * differ before, within and after the bytes it sorts by as numbers, of keys that end early, and of
 * keys equal in bytes, which keep the order they came in.
 */
class StoreKeyOrderTest {

    @ParameterizedTest(name = "keys of at most {0} bytes")
    @ValueSource(ints = {2, 6, 13})
    void sortsRandomKeysAsTheirBytesDo(int maxLength) {
        Random random = new Random(42 + maxLength);
        byte[] alphabet = {0, 1, (byte) 0x7F, (byte) 0x80, (byte) 0xFF};
        for (int round = 0; round < 300; round++) {
            // Few distinct bytes and short keys make keys that begin alike, end early and repeat.
            List<byte[]> keys = new ArrayList<>();
            int count = 1 + random.nextInt(400);
            for (int i = 0; i < count; i++) {
                byte[] key = new byte[1 + random.nextInt(maxLength)];
                for (int b = 0; b < key.length; b++) {
                    key[b] = alphabet[random.nextInt(random.nextBoolean() ? 2 : alphabet.length)];
                }
                keys.add(key);
            }
            assertSortedAsBytes(keys);
        }
    }

    @Test
    void sortsKeysThatDifferFromOneAnotherInFewScatteredBytes() {
        Random random = new Random(11);
        for (int round = 0; round < 200; round++) {
            byte[] template = new byte[8 + random.nextInt(40)];
            random.nextBytes(template);
            List<byte[]> keys = new ArrayList<>();
            int count = 1 + random.nextInt(600);
            for (int i = 0; i < count; i++) {
                // Sometimes shorter than the others, so that it ends where they go on.
                byte[] key =
                        Arrays.copyOf(
                                template,
                                random.nextInt(8) == 0
                                        ? 1 + random.nextInt(template.length)
                                        : template.length);
                for (int changes = random.nextInt(4); changes > 0; changes--) {
                    key[random.nextInt(key.length)] = (byte) random.nextInt(3);
                }
                keys.add(key);
            }
            assertSortedAsBytes(keys);
        }
    }

    @Test
    void sortsKeysThatShareTheirStartAndDifferBeyondTheBytesSortedAsNumbers() {
        Random random = new Random(7);
        byte[] shared = new byte[13];
        random.nextBytes(shared);
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            // A key group, the bytes every key shares, then bytes that differ near or far behind.
            byte[] key = new byte[1 + shared.length + 24];
            key[0] = (byte) random.nextInt(4);
            System.arraycopy(shared, 0, key, 1, shared.length);
            key[1 + shared.length + random.nextInt(24)] = (byte) random.nextInt(256);
            keys.add(key);
        }
        keys.add(Arrays.copyOf(keys.get(3), keys.get(3).length));
        keys.add(Arrays.copyOf(keys.get(3), 1 + shared.length));
        assertSortedAsBytes(keys);
    }

    /**
     * Keys that differ late come first, then a short key, then a key that differs before those
     * places: the places from the short key's end on were not compared in the keys after it, and
     * must not be taken as places where all keys agree.
     */
    @Test
    void sortsAKeyThatDiffersWhereAShortKeyEndsBeforeTheOnesThatDifferLater() {
        List<byte[]> keys = new ArrayList<>();
        keys.add(new byte[10]);
        for (int place = 9; place >= 4; place--) {
            byte[] key = new byte[10];
            key[place] = 1;
            keys.add(key);
        }
        keys.add(new byte[2]);
        byte[] differsEarly = new byte[10];
        differsEarly[3] = 1;
        keys.add(differsEarly);
        while (keys.size() < 40) {
            keys.add(new byte[10]);
        }
        assertSortedAsBytes(keys);
    }

    @Test
    void keepsKeysOfEqualBytesInTheOrderTheyCameIn() {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            keys.add(new byte[] {(byte) (i % 3), 5, 5, 5, 5, 5, 5, 5, (byte) (i % 2)});
        }
        int[] order = StoreKeyOrder.sort(keys);
        for (int i = 1; i < order.length; i++) {
            if (Arrays.equals(keys.get(order[i - 1]), keys.get(order[i]))) {
                assertThat(order[i - 1])
                        .as("equal keys in the order they came")
                        .isLessThan(order[i]);
            }
        }
        assertSortedAsBytes(keys);
    }

    @Test
    void sortsNoKeysAndOneKey() {
        assertThat(StoreKeyOrder.sort(Collections.emptyList())).isEmpty();
        assertThat(StoreKeyOrder.sort(List.of(new byte[] {3}))).containsExactly(0);
    }

    @Test
    void refusesMoreKeysThanItsNumbersHoldIndicesOf() {
        List<byte[]> keys = Collections.nCopies(StoreKeyOrder.MAX_KEYS + 1, new byte[] {1, 2});
        assertThatThrownBy(() -> StoreKeyOrder.sort(keys))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(SortedColumnWrites.MAX_ENTRIES)
                .as("the held writes sort at most this many keys at once")
                .isLessThanOrEqualTo(StoreKeyOrder.MAX_KEYS);
    }

    private static void assertSortedAsBytes(List<byte[]> keys) {
        int[] expected =
                IntStream.range(0, keys.size())
                        .boxed()
                        .sorted(
                                Comparator.comparing(
                                        (Integer i) -> keys.get(i), Arrays::compareUnsigned))
                        .mapToInt(Integer::intValue)
                        .toArray();
        assertThat(StoreKeyOrder.sort(keys))
                .as("indices in the order of the keys' unsigned bytes, equal keys as they came")
                .containsExactly(expected);
    }
}
