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

/**
 * The probe rows buffered in the load phase, and during the drain at the flip behind the rows of
 * their key. A checkpoint keeps exactly the rows not joined yet.
 */
@Internal
public interface ProbeBuffer {

    /** Buffers a probe row of the current key behind the others of its key. */
    void add(RowData probeRow) throws Exception;

    /** Whether no probe row is buffered. */
    boolean isEmpty() throws Exception;

    /** Starts to drain the buffered rows; a buffer drains once at a time. */
    Drain startDrain() throws Exception;

    /**
     * Lets go of what a drain under way holds outside the state, such as an open iterator of the
     * state backend; called when the operator closes, before its state backend does.
     */
    default void close() throws Exception {}

    /** A drain of the buffered rows, joined in slices. */
    interface Drain {

        /**
         * Whether buffered rows of the current key wait in the drain: a probe row of that key then
         * waits behind them ({@link #add}), so that a key's rows leave in arrival order.
         */
        boolean holdsCurrentKey() throws Exception;

        /**
         * Hands buffered rows to the join, each removed from the buffer, until the budget of rows
         * or of nanoseconds is spent, at least one row; returns whether none is left.
         */
        boolean drain(long budget, long nanos, DrainedRows rows) throws Exception;
    }

    /** Joins the rows a drain hands over. */
    interface DrainedRows {

        /**
         * Joins a buffered probe row of the current key; returns the budget it spent: its output
         * rows, at least one.
         *
         * @param key the join key of the row
         * @param sameKeyAsBefore whether the row has the key of the row handed over just before it,
         *     so that the key's build rows, read once, may serve it
         */
        long join(RowData probeRow, RowData key, boolean sameKeyAsBefore) throws Exception;

        /** The drain has ended or stopped: no row follows until the next one starts. */
        default void drainEnded() {}
    }
}
