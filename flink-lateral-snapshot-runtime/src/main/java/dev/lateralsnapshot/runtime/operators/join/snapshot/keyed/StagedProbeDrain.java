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

import dev.lateralsnapshot.runtime.operators.join.snapshot.ProbeBuffer;
import dev.lateralsnapshot.runtime.operators.join.snapshot.ProbeBuffer.DrainedRows;

import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.table.data.RowData;

import javax.annotation.Nullable;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The drain of a {@link KeyedProbeBuffer}. It takes the rows in the state first, the ones a
 * snapshot wrote there or a restore brought, then the rows held on the heap, in the order they
 * came: every row in the state came before every held row. A key holds rows while the state's drain
 * holds rows of it or some of its rows wait among the held ones; a row of such a key buffered
 * during the drain waits behind them, at the end of the held rows. A snapshot writes the held rows
 * not joined yet into the state, from which drains of the state take every row after it.
 */
final class StagedProbeDrain implements ProbeBuffer.Drain {

    /** A drain of the rows in the buffer's state, which takes the rows buffered while it runs. */
    interface StateDrain extends ProbeBuffer.Drain {

        /** Buffers a row of the current key, which the drain holds, behind its other rows. */
        void add(RowData probeRow) throws Exception;

        /** Lets go of what the drain holds in the state backend. */
        void close() throws Exception;
    }

    private final KeyContext keys;
    private final Callable<StateDrain> drainOfState;
    private final HeldProbeRows.RowWriter intoState;
    private final Runnable ended;

    /** The drain of the rows in the state; null when none is under way. */
    @Nullable private StateDrain ofState;

    /**
     * The rows held on the heap, taken after the state's; null when there were none, and once a
     * snapshot wrote them into the state.
     */
    @Nullable private HeldProbeRows held;

    /**
     * Whether a snapshot wrote held rows into the state while its drain ran: rows of keys that
     * drain had passed are left for another.
     */
    private boolean rowsBehindTheStateDrain;

    /** How many rows of each key wait among the held ones; counted when first asked. */
    @Nullable private Map<Object, Integer> waiting;

    @Nullable private Object previousKey;

    /**
     * @param ofState the drain of the rows in the state, if it has any
     * @param held the rows held on the heap, if any
     * @param drainOfState starts another drain of the rows in the state
     * @param intoState puts a row of the current key into the state, behind the key's rows there
     * @param ended called when the last row is out
     */
    StagedProbeDrain(
            KeyContext keys,
            @Nullable StateDrain ofState,
            @Nullable HeldProbeRows held,
            Callable<StateDrain> drainOfState,
            HeldProbeRows.RowWriter intoState,
            Runnable ended) {
        this.keys = keys;
        this.ofState = ofState;
        this.held = held;
        this.drainOfState = drainOfState;
        this.intoState = intoState;
        this.ended = ended;
    }

    @Override
    public boolean holdsCurrentKey() throws Exception {
        if (ofState != null && ofState.holdsCurrentKey()) {
            return true;
        }
        if (held == null) {
            return false;
        }
        if (waiting == null) {
            // Only probe rows that come during the drain ask: count the keys then, not for a
            // drain at the end of the input, which none follow.
            waiting = new HashMap<>();
            for (Object key : held.keysLeft()) {
                waiting.merge(key, 1, Integer::sum);
            }
        }
        return waiting.containsKey(keys.getCurrentKey());
    }

    /** Buffers a row of the current key, which the drain holds, behind its other rows. */
    void add(RowData probeRow) throws Exception {
        if (held == null) {
            ofState.add(probeRow);
            return;
        }
        Object key = keys.getCurrentKey();
        held.add(key, probeRow);
        if (waiting != null) {
            waiting.merge(key, 1, Integer::sum);
        }
    }

    @Override
    public boolean drain(long budget, long nanos, DrainedRows joiner) throws Exception {
        long start = System.nanoTime();
        SpentBudget spent = new SpentBudget(joiner);
        while (ofState != null) {
            if (!ofState.drain(budget - spent.rows, nanos - (System.nanoTime() - start), spent)) {
                return false;
            }
            ofState = rowsBehindTheStateDrain ? drainOfState.call() : null;
            rowsBehindTheStateDrain = false;
            if ((ofState != null || held != null && !held.isEmpty())
                    && (spent.rows >= budget || System.nanoTime() - start >= nanos)) {
                return false;
            }
        }
        while (held != null && !held.isEmpty()) {
            Object key = held.nextKey();
            RowData probeRow = held.take();
            if (waiting != null) {
                waiting.computeIfPresent(key, (waitingKey, rows) -> rows == 1 ? null : rows - 1);
            }
            boolean sameKey = key.equals(previousKey);
            previousKey = key;
            keys.setCurrentKey(key);
            // A key counts one row of the budget on top of its rows, as in the other drains.
            spent.rows += joiner.join(probeRow, (RowData) key, sameKey) + (sameKey ? 0 : 1);
            if (spent.rows >= budget || System.nanoTime() - start >= nanos) {
                return false;
            }
        }
        ended.run();
        return true;
    }

    /** Writes the held rows not joined yet into the state; called at a snapshot. */
    void snapshot() throws Exception {
        if (held == null) {
            return;
        }
        // Counted again from the held rows left, should a write fail.
        waiting = null;
        if (ofState != null) {
            rowsBehindTheStateDrain = true;
            // Through the state's drain, which then takes the rows of the key it is on.
            held.writeTo(keys, ofState::add);
        } else {
            try {
                held.writeTo(keys, intoState);
            } finally {
                // Also for the rows written before a write that failed: they come before the rest.
                ofState = drainOfState.call();
            }
        }
        held = null;
    }

    /** Lets go of what the drain holds in the state backend. */
    void close() throws Exception {
        if (ofState != null) {
            ofState.close();
        }
    }

    /** Counts the budget the rows handed to the join spend, and hands them on. */
    private static final class SpentBudget implements DrainedRows {
        private final DrainedRows joiner;
        long rows;

        SpentBudget(DrainedRows joiner) {
            this.joiner = joiner;
        }

        @Override
        public long join(RowData probeRow, RowData key, boolean sameKeyAsBefore) throws Exception {
            long spent = joiner.join(probeRow, key, sameKeyAsBefore);
            rows += spent;
            return spent;
        }
    }
}
