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

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeutils.base.IntSerializer;

import java.util.Collections;

/**
 * The phase of each subtask, kept as union operator state, so that after a restore, at any
 * parallelism, every subtask sees the phases of all subtasks of the snapshot.
 */
final class UnionPhaseState {

    static final String STATE_NAME = "phase";

    /** The values kept in the state, and those of the {@code currentPhase} gauge. */
    static final int LOAD_PHASE = 0;

    static final int JOIN_PHASE = 1;

    private final ListState<Integer> state;
    private final boolean anyJoinPhase;
    private final boolean anyLoadPhase;

    UnionPhaseState(OperatorStateStore store) throws Exception {
        this.state =
                store.getUnionListState(
                        new ListStateDescriptor<>(STATE_NAME, IntSerializer.INSTANCE));
        boolean anyJoin = false;
        boolean anyLoad = false;
        for (Integer phase : state.get()) {
            anyJoin |= phase == JOIN_PHASE;
            anyLoad |= phase == LOAD_PHASE;
        }
        this.anyJoinPhase = anyJoin;
        this.anyLoadPhase = anyLoad;
    }

    /** Whether any subtask of the restored snapshot was in the join phase. */
    boolean restoredAnyJoinPhase() {
        return anyJoinPhase;
    }

    /** Whether the restored snapshot has subtasks in the join phase and subtasks still loading. */
    boolean restoredBothPhases() {
        return anyJoinPhase && anyLoadPhase;
    }

    /** Replaces this subtask's phase. */
    void update(boolean joinPhase) throws Exception {
        state.update(Collections.singletonList(joinPhase ? JOIN_PHASE : LOAD_PHASE));
    }
}
