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

import dev.lateralsnapshot.runtime.operators.join.snapshot.BackendTestBase;
import dev.lateralsnapshot.runtime.operators.join.snapshot.ProbeBuffer;

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import org.junit.jupiter.api.TestTemplate;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The probe buffer on its own, in the keyed state of a {@link KeyedStateHost}, on every state
 * backend, drained slice by slice as the join drains it, with rows of the draining key buffered
 * between two slices. A slice of no time joins one row, or takes a key's rows again and stops. The
 * join's use of the buffer is in {@code LateralSnapshotJoinDrainTest}.
 */
class KeyedProbeBufferTest extends BackendTestBase {

    @TestTemplate
    void keepsARowBufferedBetweenTheTakeOfItsKeysOnlyRowAndItsJoin() throws Exception {
        try (Host host = new Host(new KeyedStateHost(createStateBackend(), null))) {
            host.add("A", 1);
            ProbeBuffer.Drain drain = host.buffer.startDrain();

            assertThat(host.slice(drain)).isFalse();
            host.add("A", 2);
            // On the heap: takes the key's rows again, now its only row 2, and stops there.
            assertThat(host.slice(drain)).isFalse();
            host.add("A", 3);
            assertThat(host.drainAll(drain)).isTrue();

            assertThat(KeyedStateHost.text(host.joined))
                    .containsExactly("+I(A,1,0)", "+I(A,2,0)", "+I(A,3,0)");
            assertThat(host.buffer.isEmpty()).isTrue();
        }
    }

    @TestTemplate
    void drainsEveryKeyInArrivalOrderWithinTheKey() throws Exception {
        try (Host host = new Host(new KeyedStateHost(createStateBackend(), null))) {
            host.add("A", 1);
            host.add("B", 1);
            host.add("A", 2);
            host.add("C", 1);
            host.add("A", 3);

            assertThat(host.drainAll(host.buffer.startDrain())).isTrue();

            assertThat(KeyedStateHost.text(host.joined))
                    .containsExactlyInAnyOrder(
                            "+I(A,1,0)", "+I(A,2,0)", "+I(A,3,0)", "+I(B,1,0)", "+I(C,1,0)");
            assertThat(KeyedStateHost.text(host.joined))
                    .filteredOn(row -> row.startsWith("+I(A"))
                    .containsExactly("+I(A,1,0)", "+I(A,2,0)", "+I(A,3,0)");
            assertThat(host.buffer.isEmpty()).isTrue();
        }
    }

    @TestTemplate
    void aReadOfTheBufferAndASnapshotSeeEveryRowBufferedBeforeThem() throws Exception {
        OperatorSubtaskState snapshot;
        try (Host host = new Host(new KeyedStateHost(createStateBackend(), null))) {
            host.add("A", 1);
            assertThat(host.buffer.isEmpty()).as("one row buffered").isFalse();
            host.add("B", 1);
            host.add("A", 2);
            host.buffer.snapshot();
            snapshot = host.keyed.harness.snapshot(1L, 1L);
        }

        try (Host host = new Host(new KeyedStateHost(createStateBackend(), snapshot))) {
            assertThat(host.buffer.isEmpty()).isFalse();
            assertThat(host.drainAll(host.buffer.startDrain())).isTrue();
            assertThat(KeyedStateHost.text(host.joined))
                    .containsExactlyInAnyOrder("+I(A,1,0)", "+I(A,2,0)", "+I(B,1,0)");
        }
    }

    /** The buffer in the keyed state of a {@link KeyedStateHost}, and the rows its drains join. */
    private static final class Host implements AutoCloseable {
        final KeyedStateHost keyed;
        final KeyedProbeBuffer buffer;
        final List<RowData> joined = new ArrayList<>();

        Host(KeyedStateHost keyed) throws Exception {
            this.keyed = keyed;
            this.buffer = new KeyedProbeBuffer(keyed.operator.getOperatorStateBackend());
            buffer.open(
                    keyed.operator.getKeyedStateBackend(),
                    keyed.operator.getKeyedStateStore(),
                    keyed.operator,
                    InternalTypeInfo.of(BUILD_TYPE),
                    StateBackendKind.of(keyed.operator.getKeyedStateBackend()));
        }

        void add(String currency, int rate) throws Exception {
            keyed.setKey(currency);
            buffer.add(insert(currency, rate, 0).getValue());
        }

        /** A slice of no time. */
        boolean slice(ProbeBuffer.Drain drain) throws Exception {
            return drain.drain(Long.MAX_VALUE, 0, this::join);
        }

        boolean drainAll(ProbeBuffer.Drain drain) throws Exception {
            return drain.drain(Long.MAX_VALUE, Long.MAX_VALUE, this::join);
        }

        private long join(RowData probeRow, RowData key, boolean sameKeyAsBefore) {
            joined.add(probeRow);
            return 1;
        }

        @Override
        public void close() throws Exception {
            buffer.close();
            keyed.close();
        }
    }
}
