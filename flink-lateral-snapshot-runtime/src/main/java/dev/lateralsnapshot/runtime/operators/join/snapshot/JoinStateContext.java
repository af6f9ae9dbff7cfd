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
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.streaming.api.operators.StreamingRuntimeContext;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;

/** What the operator lends its {@link JoinState} when it opens it. */
@Internal
public interface JoinStateContext {

    StreamingRuntimeContext runtimeContext();

    ProcessingTimeService processingTimeService();

    /** The operator, which knows and sets the current key of a keyed join. */
    KeyContext keyContext();

    /** The keyed state backend; fails for a join that is not keyed. */
    KeyedStateBackend<Object> keyedStateBackend();

    /** The keyed state store; fails for a join that is not keyed. */
    KeyedStateStore keyedStateStore();

    /** A timer service of the operator, whose timers fire with their key current. */
    <N> InternalTimerService<N> timerService(
            String name, TypeSerializer<N> namespaceSerializer, Triggerable<Object, N> triggerable);

    /** Fires the event-time timers of the operator up to a time. */
    void advanceEventTime(long time) throws Exception;

    /** Whether the join is in the join phase. */
    boolean isJoinPhase();

    /**
     * Whether the restored snapshot had subtasks in both phases: rows restored in the join phase
     * may then come from a subtask that had not flipped, and keys without a TTL clock yet.
     */
    boolean restoredBothPhases();

    /** Where the build changes go that the state's {@link BuildChangeBuffer} releases. */
    ReleasedBuildChanges released();

    /** Evicts the build rows of the current key, whose TTL clock expired. */
    void evictCurrentKey() throws Exception;
}
