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

import org.apache.flink.util.Preconditions;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

/**
 * The store's order of keys, by their unsigned bytes, for a batch of store keys that {@link
 * SortedColumnWrites} holds; keys of equal bytes keep the order they were put in.
 *
 * <p>The keys of a batch agree in most of their bytes: the key row's length and null bits, the
 * offsets of its variable-length fields, the namespace, the high bytes of numbers. A sort of the
 * keys themselves compares those bytes again and again, and follows a reference to two arrays at
 * each comparison. Bytes in which all keys agree do not change their order, so this one sorts
 * numbers instead: the bytes of the first six places where the keys differ, with the key's index in
 * the lowest bits. Keys whose numbers are equal apart from their index are sorted the same way by
 * the places after those, and a few of them by their whole keys. {@code StoreKeyOrderBenchmark}
 * compares it with a sort of the keys themselves (docs/benchmarks-notes.md).
 */
public final class StoreKeyOrder {

    /** Bits of a sort number that hold the key's index. */
    static final int INDEX_BITS = 16;

    /** Keys sorted at most at once. */
    static final int MAX_KEYS = 1 << INDEX_BITS;

    /** Places of the keys whose bytes a sort number holds, in front of the index. */
    private static final int PLACES = (Long.SIZE - INDEX_BITS) / Byte.SIZE;

    private static final long INDEX_MASK = MAX_KEYS - 1;

    /** Reads eight bytes of a key at once, the first of them the highest. */
    private static final VarHandle WORDS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /** Keys alike in the places sorted by so far that are sorted by their whole keys instead. */
    private static final int SMALL_RUN = 16;

    private StoreKeyOrder() {}

    /** The indices of the keys in the store's order. */
    public static int[] sort(List<byte[]> keys) {
        int count = keys.size();
        Preconditions.checkArgument(count <= MAX_KEYS, "At most %s keys sort at once.", MAX_KEYS);
        int[] order = new int[count];
        for (int i = 0; i < count; i++) {
            order[i] = i;
        }
        sortRange(keys, order, new long[count], 0, count, 0);
        return order;
    }

    /**
     * Sorts the indices from {@code from} to {@code to}, which are in ascending order and whose
     * keys are alike in their bytes before {@code start}; keys that end before {@code start} count
     * as followed by zeros.
     */
    private static void sortRange(
            List<byte[]> keys, int[] order, long[] numbers, int from, int to, int start) {
        int[] places = new int[PLACES];
        if (to - from <= SMALL_RUN || !findPlaces(keys, order, from, to, start, places)) {
            sortByWholeKeys(keys, order, from, to);
            return;
        }
        for (int i = from; i < to; i++) {
            byte[] key = keys.get(order[i]);
            long bytes = 0;
            for (int place : places) {
                // A key that ends before a place counts as a zero there, and so never comes after
                // a longer key that starts like it.
                bytes = (bytes << Byte.SIZE) | (place < key.length ? key[place] & 0xFF : 0);
            }
            // The sign bit flipped: a signed sort of the numbers is an unsigned sort of them.
            numbers[i] = ((bytes << INDEX_BITS) | order[i]) ^ Long.MIN_VALUE;
        }
        Arrays.sort(numbers, from, to);
        int runStart = from;
        for (int i = from; i < to; i++) {
            order[i] = (int) (numbers[i] & INDEX_MASK);
            if (i + 1 == to || numbers[i + 1] >>> INDEX_BITS != numbers[i] >>> INDEX_BITS) {
                if (i > runStart) {
                    sortRange(keys, order, numbers, runStart, i + 1, places[PLACES - 1] + 1);
                }
                runStart = i + 1;
            }
        }
    }

    /**
     * Fills {@code places} with the first places from {@code start} on where a key differs from the
     * first key, or which some key is too short to have; every byte before the last of them that is
     * not in them is the same in every key. Returns false when a key ends at or before {@code
     * start}, which only a comparison of whole keys orders right.
     */
    private static boolean findPlaces(
            List<byte[]> keys, int[] order, int from, int to, int start, int[] places) {
        byte[] first = keys.get(order[from]);
        int shortest = first.length;
        // Eight bytes to a word: a byte is not zero where some key differs from the first.
        long[] differs = new long[(first.length + 7) >>> 3];
        for (int i = from + 1; i < to; i++) {
            byte[] key = keys.get(order[i]);
            shortest = Math.min(shortest, key.length);
            int common = Math.min(first.length, key.length);
            int word = start >>> 3;
            for (; (word << 3) + Long.BYTES <= common; word++) {
                differs[word] |=
                        (long) WORDS.get(first, word << 3) ^ (long) WORDS.get(key, word << 3);
            }
            if (common > word << 3 && common >= Long.BYTES) {
                // The last eight bytes both have; those before this word were compared above.
                long last =
                        (long) WORDS.get(first, common - Long.BYTES)
                                ^ (long) WORDS.get(key, common - Long.BYTES);
                int intoWord = common & 7;
                differs[word] |= last << ((Long.BYTES - intoWord) << 3);
            } else {
                for (int b = word << 3; b < common; b++) {
                    differs[word] |= (long) ((first[b] ^ key[b]) & 0xFF) << shiftOf(b);
                }
            }
        }
        if (shortest <= start) {
            return false;
        }
        int found = 0;
        for (int place = start; place < shortest && found < PLACES; place++) {
            if ((differs[place >>> 3] >>> shiftOf(place) & 0xFF) != 0) {
                places[found++] = place;
            }
        }
        // From the shortest key's length on, the keys were not all compared: those places count
        // as places where they differ.
        for (int place = shortest; found < PLACES; place++) {
            places[found++] = place;
        }
        return true;
    }

    /** Where the byte at a place is in its word, read in big-endian order. */
    private static int shiftOf(int place) {
        return (Long.BYTES - 1 - (place & 7)) << 3;
    }

    /**
     * Sorts the indices from {@code from} to {@code to}, which are in ascending order, by their
     * whole keys; a stable sort keeps equal keys in that order.
     */
    private static void sortByWholeKeys(List<byte[]> keys, int[] order, int from, int to) {
        if (to - from <= SMALL_RUN) {
            // An insertion sort, which moves a key only past greater ones.
            for (int i = from + 1; i < to; i++) {
                int index = order[i];
                int j = i;
                while (j > from
                        && Arrays.compareUnsigned(keys.get(order[j - 1]), keys.get(index)) > 0) {
                    order[j] = order[j - 1];
                    j--;
                }
                order[j] = index;
            }
            return;
        }
        Integer[] run = new Integer[to - from];
        for (int i = from; i < to; i++) {
            run[i - from] = order[i];
        }
        Arrays.sort(run, (a, b) -> Arrays.compareUnsigned(keys.get(a), keys.get(b)));
        for (int i = from; i < to; i++) {
            order[i] = run[i - from];
        }
    }
}
