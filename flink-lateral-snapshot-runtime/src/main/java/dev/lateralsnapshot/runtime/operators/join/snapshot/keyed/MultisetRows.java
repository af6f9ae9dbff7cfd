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

package dev.lateralsnapshot.runtime.operators.join.snapshot.keyed;

import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideState;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;

import javax.annotation.Nullable;

import java.util.Arrays;

import static org.apache.flink.util.Preconditions.checkArgument;

/**
 * The value that a key of the multiset layout keeps ({@link MultisetBuildSideState}): its rows in
 * place, an equal row once per occurrence, up to {@link #MAX_INLINE_ROWS}; or {@link #SPILLED}, the
 * mark that its rows are in the spill map. Immutable: every change is a new value, which the heap
 * backend and the index over it can keep as given while a snapshot still writes the old one.
 *
 * <p>A key with one row, the common case, keeps that row's bytes in fields of its own, where the
 * binary row kept them, and the probe reads them through a row of its own that it points at them: a
 * probe row then reads the value and the bytes, with no row object between them. The bytes of a row
 * stored on the heap are copied next to the value ({@link #copyOf}): a value allocated far from its
 * bytes cost the multiset join a quarter of its probe rows per second on the heap (see {@code
 * docs/benchmarks-notes.md}, "The runtime by composition").
 */
public final class MultisetRows {

    /** A key whose rows would exceed this many spills them into the map. */
    public static final int MAX_INLINE_ROWS = 32;

    /** The value of a key whose rows are in the spill map. */
    static final MultisetRows SPILLED = new MultisetRows(null, 0, 0, 0, null);

    /** The bytes of the only row of a key with one row; else null. */
    @Nullable private final MemorySegment[] segments;

    private final int offset;
    private final int sizeInBytes;
    private final int arity;

    /** The rows of a key with two or more rows in place; else null. */
    @Nullable private final RowData[] several;

    private MultisetRows(
            @Nullable MemorySegment[] segments,
            int offset,
            int sizeInBytes,
            int arity,
            @Nullable RowData[] several) {
        this.segments = segments;
        this.offset = offset;
        this.sizeInBytes = sizeInBytes;
        this.arity = arity;
        this.several = several;
    }

    /** The value of one row, a binary row whose bytes it keeps as they are. */
    static MultisetRows of(RowData row) {
        checkArgument(row instanceof BinaryRowData, "Build rows are kept as binary rows.");
        BinaryRowData binary = (BinaryRowData) row;
        return new MultisetRows(
                binary.getSegments(),
                binary.getOffset(),
                binary.getSizeInBytes(),
                binary.getArity(),
                null);
    }

    /**
     * The value of one row, with a copy of its bytes allocated right before the value, so that a
     * probe row that reads the value finds the bytes in the next cache lines rather than wherever
     * the row arrived. For the value a build change stores; a value read from bytes is laid out so
     * already.
     */
    static MultisetRows copyOf(BinaryRowData row) {
        return of(row.copy());
    }

    /** The value of one or more rows in place; the array is kept, not copied. */
    static MultisetRows of(RowData[] rows) {
        if (rows.length == 1) {
            return of(rows[0]);
        }
        if (rows.length < 1 || rows.length > MAX_INLINE_ROWS) {
            throw new IllegalArgumentException(
                    "A key keeps 1 to " + MAX_INLINE_ROWS + " rows in place, not " + rows.length);
        }
        return new MultisetRows(null, 0, 0, 0, rows);
    }

    boolean isSpilled() {
        return segments == null && several == null;
    }

    /** The number of rows in place; 0 for a spilled key. */
    int size() {
        return segments != null ? 1 : several != null ? several.length : 0;
    }

    /** The row in place at a position, as a row of its own. */
    RowData row(int position) {
        if (segments != null && position == 0) {
            BinaryRowData row = new BinaryRowData(arity);
            row.pointTo(segments, offset, sizeInBytes);
            return row;
        }
        return several[position];
    }

    /** Whether another row fits in place. */
    boolean hasRoom() {
        return !isSpilled() && size() < MAX_INLINE_ROWS;
    }

    /** This value with the row added; only for a value with room. */
    MultisetRows with(RowData row) {
        int size = size();
        RowData[] rows = new RowData[size + 1];
        for (int i = 0; i < size; i++) {
            rows[i] = row(i);
        }
        rows[size] = row;
        return new MultisetRows(null, 0, 0, 0, rows);
    }

    /** The position of a row in place with the bytes of this one; -1 for none. */
    int indexOf(BinaryRowData row) {
        if (segments != null) {
            return sizeInBytes == row.getSizeInBytes()
                            && BinarySegmentUtils.equals(
                                    segments,
                                    offset,
                                    row.getSegments(),
                                    row.getOffset(),
                                    sizeInBytes)
                    ? 0
                    : -1;
        }
        return several == null ? -1 : Arrays.asList(several).indexOf(row);
    }

    /** This value without the row at a position; null when no row is left. */
    @Nullable
    MultisetRows without(int position) {
        int size = size();
        if (size == 1) {
            return null;
        }
        RowData[] rest = new RowData[size - 1];
        for (int i = 0, j = 0; i < size; i++) {
            if (i != position) {
                rest[j++] = row(i);
            }
        }
        return of(rest);
    }

    /**
     * Visits the rows in place, each once per occurrence; the only row of a key with one through
     * {@code reusedRow}, pointed at its bytes, which the visitor must not keep.
     */
    void visit(BuildSideState.RowVisitor visitor, BinaryRowData reusedRow) throws Exception {
        if (segments != null) {
            reusedRow.pointTo(segments, offset, sizeInBytes);
            visitor.visit(reusedRow, 1);
        } else if (several != null) {
            for (RowData row : several) {
                visitor.visit(row, 1);
            }
        }
    }

    /** Equal when they hold equal rows in the same order, or are both spilled. */
    @Override
    public boolean equals(Object other) {
        if (!(other instanceof MultisetRows)) {
            return false;
        }
        MultisetRows that = (MultisetRows) other;
        if (size() != that.size() || isSpilled() != that.isSpilled()) {
            return false;
        }
        for (int i = 0; i < size(); i++) {
            if (!row(i).equals(that.row(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int hash = size();
        for (int i = 0; i < size(); i++) {
            hash = 31 * hash + row(i).hashCode();
        }
        return hash;
    }

    @Override
    public String toString() {
        if (isSpilled()) {
            return "spilled";
        }
        StringBuilder rows = new StringBuilder("[");
        for (int i = 0; i < size(); i++) {
            rows.append(i == 0 ? "" : ", ").append(row(i));
        }
        return rows.append(']').toString();
    }
}
