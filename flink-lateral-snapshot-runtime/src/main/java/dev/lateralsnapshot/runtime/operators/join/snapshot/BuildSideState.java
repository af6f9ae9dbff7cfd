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

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;

import javax.annotation.Nullable;

/**
 * The build rows of the current join key. One implementation per {@link BuildSideLayout} and
 * distribution; only {@link BuildSideWriter} changes them, and probe rows read them.
 *
 * <p>Rows handed to {@link #add} and {@link #retract} have their row kind reset to {@code INSERT},
 * so that equal rows compare equal whatever change brought them.
 */
@Internal
public abstract class BuildSideState {

    /** Receives the build rows of the current key during a probe. */
    public interface RowVisitor {
        void visit(RowData buildRow, int multiplicity) throws Exception;
    }

    /**
     * The build rows of one key read once, to join several probe rows of that key in a row while
     * its build rows do not change; see {@link #readRows}.
     */
    public interface KeyRows {
        /** Visits the rows read; returns false when the key had no build row. */
        boolean visit(RowVisitor visitor) throws Exception;
    }

    /** The rows of a key that has none, or of a key that can match none. */
    public static final KeyRows NO_ROWS = visitor -> false;

    public abstract void add(RowData row) throws Exception;

    /**
     * Lets the rows added from now on be held and written to the state together at {@link
     * #writeHeldAdds}, where the layout and the state backend allow: a backend of sorted bytes
     * takes many writes in its own order of keys for less than the same writes one by one. Reads of
     * the build rows in between see the rows held.
     */
    public void startHoldingAdds() {}

    /**
     * Writes the rows held since {@link #startHoldingAdds} to the state; holds none from now on.
     */
    public void writeHeldAdds() throws Exception {}

    /** Removes one occurrence of the row; returns false when there was nothing to remove. */
    public abstract boolean retract(RowData row) throws Exception;

    /** Visits every build row of the key; returns false when the key has no build row. */
    public abstract boolean visitRows(RowVisitor visitor) throws Exception;

    /**
     * Reads the current key's build rows for {@link KeyRows#visit}, which the caller may call for
     * several probe rows of the key until the key's build rows change. On RocksDB this saves a read
     * and a deserialization per probe row after the first.
     */
    public abstract KeyRows readRows() throws Exception;

    /**
     * After a change to the build rows, {@link #readRowsInKeyOrder} reads this many keys from the
     * state before it opens a cursor: a cursor opened for every read, where changes and reads
     * alternate, would cost more than the lookups it saves.
     */
    public static final int READS_IN_KEY_ORDER_BEFORE_CURSOR = 8;

    /**
     * Reads the current key's build rows as {@link #readRows} does, for keys asked in the order the
     * state backend keeps them, as the drain of a backend of sorted bytes asks them: where the
     * backend allows, by a cursor that moves forward from key to key instead of a lookup per key.
     *
     * @param version changes whenever the build rows change ({@code BuildSideWriter#version}),
     *     which a cursor must then see
     */
    public KeyRows readRowsInKeyOrder(long version) throws Exception {
        return readRows();
    }

    /** Lets go of what reads in key order hold in the state backend. */
    public void endReadsInKeyOrder() {}

    public abstract boolean isEmpty() throws Exception;

    /** Removes every row of the current key. */
    public abstract void clear() throws Exception;

    /** Visits the row of a key with at most one row; returns false when it is null. */
    protected static boolean visitSingleRow(@Nullable RowData row, RowVisitor visitor)
            throws Exception {
        if (row == null) {
            return false;
        }
        visitor.visit(row, 1);
        return true;
    }

    /** The rows of a key with at most one row, read once. */
    protected static KeyRows singleRow(@Nullable RowData row) {
        return row == null ? NO_ROWS : visitor -> visitSingleRow(row, visitor);
    }
}
