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

import org.apache.flink.table.data.RowData;

import javax.annotation.Nullable;

import java.util.Arrays;

/**
 * The value that a key of the multiset layout keeps ({@link MultisetBuildSideState}): its rows in
 * place, an equal row once per occurrence, up to {@link #MAX_INLINE_ROWS}; or {@link #SPILLED}, the
 * mark that its rows are in the spill map. Immutable: every change is a new value, which the heap
 * backend and the index over it can keep as given while a snapshot still writes the old one.
 *
 * <p>A key with one row, the common case, holds it in a field of its own, so that a probe row reads
 * the value and then the row, with no array between them.
 */
public final class MultisetRows {

    /** A key whose rows would exceed this many spills them into the map. */
    public static final int MAX_INLINE_ROWS = 32;

    /** The value of a key whose rows are in the spill map. */
    static final MultisetRows SPILLED = new MultisetRows(null, null);

    /** The only row of a key with one row; else null. */
    @Nullable private final RowData only;

    /** The rows of a key with two or more rows in place; else null. */
    @Nullable private final RowData[] several;

    private MultisetRows(@Nullable RowData only, @Nullable RowData[] several) {
        this.only = only;
        this.several = several;
    }

    static MultisetRows of(RowData row) {
        return new MultisetRows(row, null);
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
        return new MultisetRows(null, rows);
    }

    boolean isSpilled() {
        return only == null && several == null;
    }

    /** The number of rows in place; 0 for a spilled key. */
    int size() {
        return only != null ? 1 : several != null ? several.length : 0;
    }

    /** The row in place at a position. */
    RowData row(int position) {
        if (only != null && position == 0) {
            return only;
        }
        return several[position];
    }

    /** Whether another row fits in place. */
    boolean hasRoom() {
        return !isSpilled() && size() < MAX_INLINE_ROWS;
    }

    /** This value with the row added; only for a value with room. */
    MultisetRows with(RowData row) {
        if (only != null) {
            return new MultisetRows(null, new RowData[] {only, row});
        }
        RowData[] rows = Arrays.copyOf(several, several.length + 1);
        rows[several.length] = row;
        return new MultisetRows(null, rows);
    }

    /** The position of an equal row in place; -1 for none. */
    int indexOf(RowData row) {
        for (int i = 0; i < size(); i++) {
            if (row(i).equals(row)) {
                return i;
            }
        }
        return -1;
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

    /** Visits the rows in place, each once per occurrence. */
    void visit(BuildSideState.RowVisitor visitor) throws Exception {
        if (only != null) {
            visitor.visit(only, 1);
        } else if (several != null) {
            for (RowData row : several) {
                visitor.visit(row, 1);
            }
        }
    }
}
