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
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;

import javax.annotation.Nullable;

import java.util.Arrays;

/**
 * A hash index from the bytes of binary key rows to values, for the probe path of the broadcast
 * build side and the longer keys of a {@link BinaryKeySet}. A lookup in a {@code HashMap} keyed by
 * {@link BinaryRowData} goes from the bucket through the node, the key row, its segments and the
 * segment's bytes before it reaches the value: one dependent memory load after the other, each a
 * cache miss once the build side outgrows the CPU's caches, which with a copy per subtask it does
 * sooner than a hashed build side (see "Broadcast build side" in docs/operations.md). Here a key's
 * bytes and its value sit side by side in one array of slots, so a lookup reads the slot and the
 * key's bytes.
 *
 * <p>Open addressing with linear probing, at most half full; a removal shifts the keys after it
 * back, so that no slot is marked deleted. Stored keys are never changed: the index keeps the bytes
 * of the key rows it is given where it can (a key row of one heap segment that it fills exactly, as
 * the planner's key selectors and the state's deserializer make them), and copies them otherwise.
 *
 * @param <V> the values: the build rows of a key, in the form of the layout
 */
final class BinaryKeyIndex<V> {

    private static final int MIN_CAPACITY = 16;

    /** Slot {@code i} holds the key's bytes at {@code 2 * i} and its value at {@code 2 * i + 1}. */
    private Object[] slots = new Object[2 * MIN_CAPACITY];

    private int size;

    int size() {
        return size;
    }

    @Nullable
    V get(BinaryRowData key) {
        int slot = find(key);
        return slot < 0 ? null : value(slot);
    }

    /** Maps the key to the value, replacing the value it had; the value must not be null. */
    void put(BinaryRowData key, V value) {
        int slot = find(key);
        if (slot >= 0) {
            slots[2 * slot + 1] = value;
            return;
        }
        if (2 * (size + 1) > capacity()) {
            resize(2 * capacity());
            slot = find(key);
        }
        int free = -slot - 1;
        slots[2 * free] = bytesToKeep(key);
        slots[2 * free + 1] = value;
        size++;
    }

    /** Removes every key, keeping the capacity the index has grown to. */
    void clear() {
        if (size > 0) {
            Arrays.fill(slots, null);
            size = 0;
        }
    }

    void remove(BinaryRowData key) {
        int slot = find(key);
        if (slot < 0) {
            return;
        }
        size--;
        int mask = capacity() - 1;
        int hole = slot;
        // Shift back every key after the hole whose probe sequence passes through it.
        for (int next = (hole + 1) & mask; slots[2 * next] != null; next = (next + 1) & mask) {
            int home = hash((byte[]) slots[2 * next]) & mask;
            if (((next - home) & mask) >= ((next - hole) & mask)) {
                slots[2 * hole] = slots[2 * next];
                slots[2 * hole + 1] = slots[2 * next + 1];
                hole = next;
            }
        }
        slots[2 * hole] = null;
        slots[2 * hole + 1] = null;
    }

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
        slots = new Object[2 * capacity];
        int mask = capacity - 1;
        for (int i = 0; i < old.length; i += 2) {
            if (old[i] != null) {
                int slot = hash((byte[]) old[i]) & mask;
                while (slots[2 * slot] != null) {
                    slot = (slot + 1) & mask;
                }
                slots[2 * slot] = old[i];
                slots[2 * slot + 1] = old[i + 1];
            }
        }
    }

    private int capacity() {
        return slots.length / 2;
    }

    @SuppressWarnings("unchecked")
    private V value(int slot) {
        return (V) slots[2 * slot + 1];
    }
}
