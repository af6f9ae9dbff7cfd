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

import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;

import java.util.Arrays;

/**
 * A set of binary key rows, for the keys a {@link StateTtlClock} remembers: every probe row that
 * finds build rows looks its key up, so a lookup must cost less than the state read it saves.
 *
 * <p>A key row of sixteen bytes (the null bits and one field: a key of one column of a fixed-size
 * type, or a string of up to seven bytes) is held in place, as two words in one array, so that a
 * lookup reads one slot and no key object: in a {@link BinaryKeyIndex} it reads the slot and then
 * the key's bytes elsewhere on the heap, a second cache miss per probe row once the keys outgrow
 * the CPU's caches. Other keys are held in a {@link BinaryKeyIndex}.
 *
 * <p>Open addressing with linear probing, at most half full, with a bit per slot telling whether it
 * is taken, as any two words are a key. Keys are only added, until {@link #clear}.
 */
final class BinaryKeySet {

    /** The size of the key rows held in place. */
    private static final int INLINE_KEY_BYTES = 16;

    private static final int MIN_CAPACITY = 64;

    /** Slot {@code i} holds its key's words at {@code 2 * i} and {@code 2 * i + 1}. */
    private long[] words = new long[2 * MIN_CAPACITY];

    /** Bit {@code i} is set when slot {@code i} holds a key. */
    private long[] taken = new long[MIN_CAPACITY / Long.SIZE];

    private int inlineSize;

    private final BinaryKeyIndex<Boolean> otherKeys = new BinaryKeyIndex<>();

    int size() {
        return inlineSize + otherKeys.size();
    }

    boolean contains(BinaryRowData key) {
        if (!isInline(key)) {
            return otherKeys.get(key) != null;
        }
        return find(firstWord(key), secondWord(key)) >= 0;
    }

    void add(BinaryRowData key) {
        if (!isInline(key)) {
            otherKeys.put(key, Boolean.TRUE);
            return;
        }
        long first = firstWord(key);
        long second = secondWord(key);
        int slot = find(first, second);
        if (slot >= 0) {
            return;
        }
        if (2 * (inlineSize + 1) > capacity()) {
            resize(2 * capacity());
            slot = find(first, second);
        }
        take(-slot - 1, first, second);
        inlineSize++;
    }

    /** Removes every key, keeping the capacity the set has grown to. */
    void clear() {
        if (inlineSize > 0) {
            Arrays.fill(taken, 0L);
            inlineSize = 0;
        }
        otherKeys.clear();
    }

    private static boolean isInline(BinaryRowData key) {
        return key.getSizeInBytes() == INLINE_KEY_BYTES;
    }

    /** Read across segments where the key's bytes are split, so that equal bytes are one key. */
    private static long firstWord(BinaryRowData key) {
        return BinarySegmentUtils.getLong(key.getSegments(), key.getOffset());
    }

    private static long secondWord(BinaryRowData key) {
        return BinarySegmentUtils.getLong(key.getSegments(), key.getOffset() + Long.BYTES);
    }

    /** The slot of the key, or {@code -(free slot) - 1} where it would go. */
    private int find(long first, long second) {
        int mask = capacity() - 1;
        for (int slot = hash(first, second) & mask; ; slot = (slot + 1) & mask) {
            if (!isTaken(taken, slot)) {
                return -slot - 1;
            }
            if (words[2 * slot] == first && words[2 * slot + 1] == second) {
                return slot;
            }
        }
    }

    /** Spreads both words over the low bits, which pick the slot. */
    private static int hash(long first, long second) {
        long h = (first * 0x9E3779B97F4A7C15L) ^ second;
        h = (h ^ (h >>> 32)) * 0xD6E8FEB86659FD93L;
        return (int) (h ^ (h >>> 32));
    }

    private static boolean isTaken(long[] bits, int slot) {
        return (bits[slot >>> 6] & (1L << slot)) != 0;
    }

    private void take(int slot, long first, long second) {
        taken[slot >>> 6] |= 1L << slot;
        words[2 * slot] = first;
        words[2 * slot + 1] = second;
    }

    private void resize(int capacity) {
        long[] oldWords = words;
        long[] oldTaken = taken;
        words = new long[2 * capacity];
        taken = new long[capacity / Long.SIZE];
        for (int slot = 0; slot < oldWords.length / 2; slot++) {
            if (isTaken(oldTaken, slot)) {
                long first = oldWords[2 * slot];
                long second = oldWords[2 * slot + 1];
                take(-find(first, second) - 1, first, second);
            }
        }
    }

    private int capacity() {
        return words.length / 2;
    }
}
