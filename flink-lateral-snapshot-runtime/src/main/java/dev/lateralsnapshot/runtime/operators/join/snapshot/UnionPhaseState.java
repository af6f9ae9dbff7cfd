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
import java.util.List;

/**
 * The phase of each subtask, kept as union operator state, so that after a restore, at any
 * parallelism, every subtask sees the phases of all subtasks of the snapshot.
 *
 * <p>The phase is written twice: once in the state this class reads, and once under the name of the
 * phase state of Flink 2.4's LATERAL SNAPSHOT join, with a serializer of this library ({@link
 * LateralSnapshotLibraryPhaseSerializer}). Flink derives the operator ids of a SQL job from its
 * topology, so a savepoint of this library restored into a Flink 2.4 job of the same shape would go
 * to that join, which keeps its probe buffer under the same name and type as this one and its build
 * side under another: it would restore the buffered probe rows without their build side and start
 * over loading, without a word. With this state the restore fails instead (see {@code
 * docs/moving-to-flink-2.4.md}).
 */
final class UnionPhaseState {

    /** The values kept in the state, and those of the {@code currentPhase} gauge. */
    static final int LOAD_PHASE = 0;

    static final int JOIN_PHASE = 1;

    private final ListState<Integer> state;
    private final ListState<Integer> flink24State;
    private final boolean anyJoinPhase;
    private final boolean anyLoadPhase;

    UnionPhaseState(OperatorStateStore store) throws Exception {
        this.state =
                store.getUnionListState(
                        new ListStateDescriptor<>(
                                LateralSnapshotJoinStateNames.PHASE, IntSerializer.INSTANCE));
        this.flink24State =
                store.getUnionListState(
                        new ListStateDescriptor<>(
                                LateralSnapshotJoinStateNames.FLINK_2_4_PHASE,
                                LateralSnapshotLibraryPhaseSerializer.INSTANCE));
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
        List<Integer> phase = Collections.singletonList(joinPhase ? JOIN_PHASE : LOAD_PHASE);
        state.update(phase);
        flink24State.update(phase);
    }
}
