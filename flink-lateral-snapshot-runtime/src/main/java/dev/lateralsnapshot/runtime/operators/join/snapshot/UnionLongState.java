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
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeutils.base.LongSerializer;

import java.util.Collections;

/**
 * Operator state of one long per subtask, kept as union state: after a restore, at any parallelism,
 * every subtask sees the values of all subtasks and continues from their maximum.
 */
@Internal
public final class UnionLongState {

    private final ListState<Long> state;

    public UnionLongState(OperatorStateStore store, String name) throws Exception {
        this.state =
                store.getUnionListState(new ListStateDescriptor<>(name, LongSerializer.INSTANCE));
    }

    /** The largest value in the state, or {@code empty} when it holds none. */
    public long max(long empty) throws Exception {
        long max = empty;
        for (Long value : state.get()) {
            max = Math.max(max, value);
        }
        return max;
    }

    /** Replaces this subtask's value. */
    public void update(long value) throws Exception {
        state.update(Collections.singletonList(value));
    }
}
