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
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.table.data.RowData;

import javax.annotation.Nullable;

/**
 * The state of one subtask of the join, as its {@link BuildSideDistribution} keeps it: what differs
 * between a join whose inputs are both partitioned by the join keys and one whose build side is
 * broadcast. The operator decides everything else (phases, flip, drain, watermarks, the order of
 * build changes) and reaches the state only through this interface and its parts.
 *
 * <p>The parts work on <em>the current key</em>: the join key that the last {@link #enterProbeKey}
 * or {@link #enterBuildKey} returned, or that a timer or drain of the state set before it handed a
 * row to the operator. A keyed join gets it from Flink, which sets it before every record and
 * timer; a broadcast join selects it from the row itself.
 */
@Internal
public interface JoinState {

    /**
     * Called from the operator's {@code initializeState}: registers the operator state of the
     * distribution, and fails on a restored snapshot whose build side it cannot read, with a
     * message that says what it found.
     */
    void initialize(OperatorStateStore operatorState, boolean restored) throws Exception;

    /**
     * Called from the operator's {@code open}: registers keyed state and timers, and after a
     * restore rebuilds what it keeps on the heap from the state.
     */
    void open(JoinStateContext context) throws Exception;

    /** Called when the operator takes a snapshot: writes into state what waits on the heap. */
    void snapshot() throws Exception;

    /** Makes the join key of a probe row current, and returns it as a binary row. */
    RowData enterProbeKey(RowData probeRow) throws Exception;

    /** Makes the join key of a build change current, and returns it as a binary row. */
    RowData enterBuildKey(RowData change) throws Exception;

    /** The build rows; valid after {@link #open}. */
    BuildSideState buildSide();

    /** The buffered probe rows; valid after {@link #open}. */
    ProbeBuffer probeBuffer();

    /** The build changes that wait for the build watermark; valid after {@link #open}. */
    BuildChangeBuffer changes();

    /**
     * What keeps this subtask's rows as objects on the JVM heap, and what a user would change to
     * move them off it or make room, for the message of a join that no longer fits there; null
     * where the rows are in a store that the heap does not limit (RocksDB, ForSt). Valid after
     * {@link #open}.
     */
    @Nullable
    String heapResidence();

    /** The clocks of the state TTL; null without a TTL. Valid after {@link #open}. */
    @Nullable
    BuildKeyTtl ttl();
}
