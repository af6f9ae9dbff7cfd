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

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;

import javax.annotation.Nullable;

import java.util.Arrays;

import static org.apache.flink.util.Preconditions.checkNotNull;
import static org.apache.flink.util.Preconditions.checkState;

/**
 * A hash index from the bytes of binary key rows to values, for the probe path of the broadcast
 * build side and for the keys a {@link BinaryKeySet} remembers. A lookup in a {@code HashMap} keyed
 * by {@link BinaryRowData} goes from the bucket through the node, the key row, its segments and the
 * segment's bytes before it reaches the value: one dependent memory load after the other, each a
 * cache miss once the build side outgrows the CPU's caches, which with a copy per subtask it does
 * sooner than a hashed build side (see "Broadcast build side" in docs/operations.md).
 *
 * <p>A key row of sixteen bytes (the null bits and one field: a key of one column of a fixed-size
 * type, or a string of up to seven bytes) is held in place, as two words of one array, next to an
 * array of the values: a lookup reads its slot in both, two loads that do not wait for each other,
 * and no key object; a bit per slot, in an array small enough to stay in the CPU's caches, says
 * which slots are taken. Other keys keep their bytes and their value side by side in one array of
 * slots, so that a lookup reads the slot and then the key's bytes.
 *
 * <p>An index may keep a stamp, a number, for every key it holds: the TTL clock marks a key it
 * refreshed with the window of time it refreshed it in. A key held in place has its stamp in the
 * word after its key, in the cache line that its lookup has just read.
 *
 * <p>Both tables use open addressing with linear probing, at most half full; a removal shifts the
 * keys after it back, so that no slot is marked deleted. Stored keys are never changed: the index
 * keeps the bytes of the key rows it is given where it can (a key row of one heap segment that it
 * fills exactly, as the planner's key selectors and the state's deserializer make them), and copies
 * them otherwise.
 *
 * @param <V> the values: the build rows of a key, in the form of the layout
 */
@Internal
public final class BinaryKeyIndex<V> {

    /** The size of the key rows held in place. */
    private static final int INLINE_KEY_BYTES = 16;

    private static final int MIN_CAPACITY = 16;

    /** The stamp of a key put since it was last held, and of a key not held. */
    public static final long NO_STAMP = Long.MIN_VALUE;

    /** Whether every key has a stamp; see {@link #stamp}. */
    private final boolean stamped;

    // ---- keys of sixteen bytes, in place ----

    /** The words of a slot: the key's two, then its stamp when keys have one. */
    private final int stride;

    /** Slot {@code i} holds its key's words from {@code stride * i}. */
    private long[] words;

    /** Bit {@code i} is set when slot {@code i} holds a key, as any two words are a key. */
    private long[] taken = new long[(MIN_CAPACITY + Long.SIZE - 1) / Long.SIZE];

    /** The value of slot {@code i}. */
    private Object[] inlineValues = new Object[MIN_CAPACITY];

    private int inlineSize;

    // ---- other keys ----

    /** Slot {@code i} holds the key's bytes at {@code 2 * i} and its value at {@code 2 * i + 1}. */
    private Object[] slots = new Object[2 * MIN_CAPACITY];

    /** The stamp of slot {@code i}, when keys have one; else null. */
    @Nullable private long[] stamps;

    private int otherSize;

    /** An index whose keys have no stamp. */
    public BinaryKeyIndex() {
        this(false);
    }

    /**
     * @param stamped whether every key has a stamp, which a held key keeps in place, so that the
     *     stamp of a key just looked up is read without another cache miss
     */
    public BinaryKeyIndex(boolean stamped) {
        this.stamped = stamped;
        this.stride = stamped ? 3 : 2;
        this.words = new long[stride * MIN_CAPACITY];
        this.stamps = stamped ? new long[MIN_CAPACITY] : null;
    }

    public int size() {
        return inlineSize + otherSize;
    }

    @Nullable
    @SuppressWarnings("unchecked")
    public V get(BinaryRowData key) {
        if (isInline(key)) {
            int slot = findInline(firstWord(key), secondWord(key));
            return slot < 0 ? null : (V) inlineValues[slot];
        }
        int slot = find(key);
        return slot < 0 ? null : (V) slots[2 * slot + 1];
    }

    public boolean containsKey(BinaryRowData key) {
        return isInline(key) ? findInline(firstWord(key), secondWord(key)) >= 0 : find(key) >= 0;
    }

    /**
     * The stamp of the key: a number that the index keeps for a key as long as it holds the key,
     * {@link #NO_STAMP} for a key put since, and for a key it does not hold. The index must have
     * stamps.
     */
    public long stamp(BinaryRowData key) {
        checkState(stamped, "The keys of this index have no stamp.");
        if (isInline(key)) {
            int slot = findInline(firstWord(key), secondWord(key));
            return slot < 0 ? NO_STAMP : words[stride * slot + 2];
        }
        int slot = find(key);
        return slot < 0 ? NO_STAMP : stamps[slot];
    }

    /** Sets the stamp of the key, when the index holds it; the index must have stamps. */
    public void setStamp(BinaryRowData key, long stamp) {
        checkState(stamped, "The keys of this index have no stamp.");
        if (isInline(key)) {
            int slot = findInline(firstWord(key), secondWord(key));
            if (slot >= 0) {
                words[stride * slot + 2] = stamp;
            }
            return;
        }
        int slot = find(key);
        if (slot >= 0) {
            stamps[slot] = stamp;
        }
    }

    /**
     * Maps the key to the value, replacing the value it had and keeping its stamp; the value must
     * not be null.
     */
    public void put(BinaryRowData key, V value) {
        checkNotNull(value);
        if (isInline(key)) {
            putInline(firstWord(key), secondWord(key), value);
            return;
        }
        int slot = find(key);
        if (slot >= 0) {
            slots[2 * slot + 1] = value;
            return;
        }
        if (2 * (otherSize + 1) > capacity()) {
            resize(2 * capacity());
            slot = find(key);
        }
        int free = -slot - 1;
        slots[2 * free] = bytesToKeep(key);
        slots[2 * free + 1] = value;
        if (stamped) {
            stamps[free] = NO_STAMP;
        }
        otherSize++;
    }

    /** Removes every key, keeping the capacity the index has grown to. */
    public void clear() {
        if (inlineSize > 0) {
            Arrays.fill(taken, 0L);
            Arrays.fill(inlineValues, null);
            inlineSize = 0;
        }
        if (otherSize > 0) {
            Arrays.fill(slots, null);
            otherSize = 0;
        }
    }

    public void remove(BinaryRowData key) {
        if (isInline(key)) {
            removeInline(firstWord(key), secondWord(key));
            return;
        }
        int slot = find(key);
        if (slot < 0) {
            return;
        }
        otherSize--;
        int mask = capacity() - 1;
        int hole = slot;
        // Shift back every key after the hole whose probe sequence passes through it.
        for (int next = (hole + 1) & mask; slots[2 * next] != null; next = (next + 1) & mask) {
            int home = hash((byte[]) slots[2 * next]) & mask;
            if (((next - home) & mask) >= ((next - hole) & mask)) {
                slots[2 * hole] = slots[2 * next];
                slots[2 * hole + 1] = slots[2 * next + 1];
                if (stamped) {
                    stamps[hole] = stamps[next];
                }
                hole = next;
            }
        }
        slots[2 * hole] = null;
        slots[2 * hole + 1] = null;
    }

    // ---- keys of sixteen bytes ----

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
    private int findInline(long first, long second) {
        int mask = inlineValues.length - 1;
        for (int slot = hash(first, second) & mask; ; slot = (slot + 1) & mask) {
            if (!isTaken(taken, slot)) {
                return -slot - 1;
            }
            if (words[stride * slot] == first && words[stride * slot + 1] == second) {
                return slot;
            }
        }
    }

    private void putInline(long first, long second, Object value) {
        int slot = findInline(first, second);
        if (slot >= 0) {
            inlineValues[slot] = value;
            return;
        }
        if (2 * (inlineSize + 1) > inlineValues.length) {
            resizeInline(2 * inlineValues.length);
            slot = findInline(first, second);
        }
        int free = -slot - 1;
        takeInline(free, first, second, value);
        if (stamped) {
            words[stride * free + 2] = NO_STAMP;
        }
        inlineSize++;
    }

    private void removeInline(long first, long second) {
        int slot = findInline(first, second);
        if (slot < 0) {
            return;
        }
        inlineSize--;
        int mask = inlineValues.length - 1;
        int hole = slot;
        // Shift back every key after the hole whose probe sequence passes through it.
        for (int next = (hole + 1) & mask; isTaken(taken, next); next = (next + 1) & mask) {
            int home = hash(words[stride * next], words[stride * next + 1]) & mask;
            if (((next - home) & mask) >= ((next - hole) & mask)) {
                moveInline(words, next, inlineValues[next], hole);
                hole = next;
            }
        }
        taken[hole >>> 6] &= ~(1L << hole);
        inlineValues[hole] = null;
    }

    private static boolean isTaken(long[] bits, int slot) {
        return (bits[slot >>> 6] & (1L << slot)) != 0;
    }

    private void takeInline(int slot, long first, long second, Object value) {
        taken[slot >>> 6] |= 1L << slot;
        words[stride * slot] = first;
        words[stride * slot + 1] = second;
        inlineValues[slot] = value;
    }

    /** Puts the key, stamp and value of a slot of {@code from} into a slot of this table. */
    private void moveInline(long[] from, int fromSlot, Object value, int slot) {
        takeInline(slot, from[stride * fromSlot], from[stride * fromSlot + 1], value);
        if (stamped) {
            words[stride * slot + 2] = from[stride * fromSlot + 2];
        }
    }

    /** Spreads both words over the low bits, which pick the slot. */
    private static int hash(long first, long second) {
        long h = (first * 0x9E3779B97F4A7C15L) ^ second;
        h = (h ^ (h >>> 32)) * 0xD6E8FEB86659FD93L;
        return (int) (h ^ (h >>> 32));
    }

    private void resizeInline(int capacity) {
        long[] oldWords = words;
        long[] oldTaken = taken;
        Object[] oldValues = inlineValues;
        words = new long[stride * capacity];
        taken = new long[(capacity + Long.SIZE - 1) / Long.SIZE];
        inlineValues = new Object[capacity];
        for (int slot = 0; slot < oldValues.length; slot++) {
            if (isTaken(oldTaken, slot)) {
                int free = -findInline(oldWords[stride * slot], oldWords[stride * slot + 1]) - 1;
                moveInline(oldWords, slot, oldValues[slot], free);
            }
        }
    }

    // ---- other keys ----

    /** The slot of the key, or {@code -(free slot) - 1} where it would go. */
    private int find(BinaryRowData key) {
        int mask = capacity() - 1;
        MemorySegment[] segments = key.getSegments();
        int length = key.getSizeInBytes();
        boolean oneHeapSegment = segments.length == 1 && !segments[0].isOffHeap();
        byte[] bytes = oneHeapSegment ? segments[0].getArray() : bytesOf(key);
        int offset = oneHeapSegment ? key.getOffset() : 0;
        for (int slot = hash(key) & mask; ; slot = (slot + 1) & mask) {
            byte[] stored = (byte[]) slots[2 * slot];
            if (stored == null) {
                return -slot - 1;
            }
            if (stored.length == length
                    && Arrays.equals(stored, 0, length, bytes, offset, offset + length)) {
                return slot;
            }
        }
    }

    /** The hash of the key's bytes, the same whether they are in one segment or several. */
    private static int hash(BinaryRowData key) {
        MemorySegment[] segments = key.getSegments();
        return segments.length == 1
                ? BinarySegmentUtils.hash(segments, key.getOffset(), key.getSizeInBytes())
                : hash(bytesOf(key));
    }

    private static int hash(byte[] bytes) {
        return BinarySegmentUtils.hash(
                new MemorySegment[] {MemorySegmentFactory.wrap(bytes)}, 0, bytes.length);
    }

    private static byte[] bytesToKeep(BinaryRowData key) {
        MemorySegment[] segments = key.getSegments();
        if (segments.length == 1
                && !segments[0].isOffHeap()
                && key.getOffset() == 0
                && segments[0].size() == key.getSizeInBytes()) {
            return segments[0].getArray();
        }
        return bytesOf(key);
    }

    private static byte[] bytesOf(BinaryRowData key) {
        return BinarySegmentUtils.copyToBytes(
                key.getSegments(), key.getOffset(), key.getSizeInBytes());
    }

    private void resize(int capacity) {
        Object[] old = slots;
        long[] oldStamps = stamps;
        slots = new Object[2 * capacity];
        stamps = stamped ? new long[capacity] : null;
        int mask = capacity - 1;
        for (int i = 0; i < old.length; i += 2) {
            if (old[i] != null) {
                int slot = hash((byte[]) old[i]) & mask;
                while (slots[2 * slot] != null) {
                    slot = (slot + 1) & mask;
                }
                slots[2 * slot] = old[i];
                slots[2 * slot + 1] = old[i + 1];
                if (stamped) {
                    stamps[slot] = oldStamps[i / 2];
                }
            }
        }
    }

    /** The slots of the table of other keys. */
    private int capacity() {
        return slots.length / 2;
    }
}
