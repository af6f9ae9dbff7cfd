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
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateNames;
import dev.lateralsnapshot.runtime.operators.join.snapshot.ProbeBuffer;

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import org.junit.jupiter.api.TestTemplate;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

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
            // Into the state, as at a checkpoint in the load phase: the heap drains it from there.
            host.buffer.snapshot();
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

    @TestTemplate
    void rowsOfALoadPhaseReachTheStateWithTheFirstSnapshot() throws Exception {
        try (Host host = new Host(new KeyedStateHost(createStateBackend(), null))) {
            host.add("A", 1);
            host.add("B", 1);
            host.add("A", 2);

            assertThat(host.rowsInState()).isEmpty();
            assertThat(host.buffer.isEmpty()).isFalse();

            host.buffer.snapshot();
            assertThat(host.rowsInState()).containsExactlyInAnyOrder("A", "B");

            host.add("C", 1);
            assertThat(host.drainAll(host.buffer.startDrain())).isTrue();
            assertThat(KeyedStateHost.text(host.joined))
                    .filteredOn(row -> row.startsWith("+I(A"))
                    .containsExactly("+I(A,1,0)", "+I(A,2,0)");
            assertThat(KeyedStateHost.text(host.joined)).hasSize(4).contains("+I(C,1,0)");
            assertThat(host.rowsInState()).isEmpty();
        }
    }

    @TestTemplate
    void aKeyHoldsRowsDuringTheDrainUntilItsLastRowIsJoined() throws Exception {
        try (Host host = new Host(new KeyedStateHost(createStateBackend(), null))) {
            host.add("A", 1);
            host.add("B", 1);
            host.add("A", 2);
            ProbeBuffer.Drain drain = host.buffer.startDrain();

            assertThat(host.slice(drain)).isFalse();
            assertThat(host.joined).hasSize(1);
            assertThat(host.holds(drain, "A")).as("A holds one row at least").isTrue();
            assertThat(host.holds(drain, "C")).as("C never had rows").isFalse();
            host.add("A", 3);
            host.add("A", 4);
            while (host.joinedOf("A") < 4) {
                assertThat(host.holds(drain, "A")).isTrue();
                assertThat(host.slice(drain)).isFalse();
            }
            assertThat(host.drainAll(drain)).isTrue();

            assertThat(KeyedStateHost.text(host.joined))
                    .filteredOn(row -> row.startsWith("+I(A"))
                    .containsExactly("+I(A,1,0)", "+I(A,2,0)", "+I(A,3,0)", "+I(A,4,0)");
            assertThat(host.buffer.isEmpty()).isTrue();
        }
    }

    @TestTemplate
    void aSnapshotDuringTheDrainKeepsExactlyTheRowsNotJoinedYet() throws Exception {
        List<String> all = List.of("+I(A,1,0)", "+I(B,1,0)", "+I(A,2,0)", "+I(C,1,0)", "+I(A,3,0)");
        List<String> joinedBefore;
        OperatorSubtaskState snapshot;
        try (Host host = new Host(new KeyedStateHost(createStateBackend(), null))) {
            host.add("A", 1);
            host.add("B", 1);
            host.add("A", 2);
            host.add("C", 1);
            ProbeBuffer.Drain drain = host.buffer.startDrain();
            while (host.joined.size() < 2) {
                assertThat(host.slice(drain)).isFalse();
            }
            // Behind the rows of A that wait, as the join buffers a row of a key the drain holds.
            host.add("A", 3);
            joinedBefore = KeyedStateHost.text(host.joined);
            host.buffer.snapshot();
            snapshot = host.keyed.harness.snapshot(1L, 1L);

            assertThat(host.holds(drain, "A")).isTrue();
            assertThat(host.drainAll(drain)).isTrue();
            assertThat(KeyedStateHost.text(host.joined)).containsExactlyInAnyOrderElementsOf(all);
            assertThat(KeyedStateHost.text(host.joined))
                    .filteredOn(row -> row.startsWith("+I(A"))
                    .containsExactly("+I(A,1,0)", "+I(A,2,0)", "+I(A,3,0)");
            assertThat(host.rowsInState()).isEmpty();
        }

        try (Host host = new Host(new KeyedStateHost(createStateBackend(), snapshot))) {
            assertThat(host.drainAll(host.buffer.startDrain())).isTrue();
            List<String> joinedAfter = KeyedStateHost.text(host.joined);
            assertThat(joinedBefore).hasSize(2).doesNotContainAnyElementsOf(joinedAfter);
            List<String> both = new ArrayList<>(joinedBefore);
            both.addAll(joinedAfter);
            assertThat(both).containsExactlyInAnyOrderElementsOf(all);
            assertThat(both)
                    .filteredOn(row -> row.startsWith("+I(A"))
                    .containsExactly("+I(A,1,0)", "+I(A,2,0)", "+I(A,3,0)");
        }
    }

    /**
     * Snapshots at every point of a drain of rows in the state and rows held after them, slices
     * spent by time and by a budget of one row taking turns, with rows buffered for the keys the
     * drain holds before and after a first snapshot, and a second snapshot two slices later.
     */
    @TestTemplate
    void aSnapshotAtAnyPointOfADrainOfRowsInStateAndRowsAfterThemKeepsTheRowsNotJoined()
            throws Exception {
        for (int slices = 0; slices <= 16; slices++) {
            String at = "after " + slices + " slices";
            List<String> added = new ArrayList<>();
            List<String> joinedAtFirst;
            List<String> addedAtFirst;
            List<String> joinedAtSecond;
            List<String> addedAtSecond;
            OperatorSubtaskState first;
            OperatorSubtaskState second;
            try (Host host = new Host(new KeyedStateHost(createStateBackend(), null))) {
                host.add("A", 1, added);
                host.add("B", 1, added);
                host.add("C", 1, added);
                // A checkpoint in the load phase: these rows are in the state, the next ones after.
                host.buffer.snapshot();
                host.add("A", 2, added);
                host.add("B", 2, added);
                host.add("D", 1, added);
                host.add("A", 3, added);
                host.add("D", 2, added);
                ProbeBuffer.Drain drain = host.buffer.startDrain();
                boolean done = host.slices(drain, slices);
                done = host.addWhereHeld(drain, done, added, "A", 4, "D", 3);
                joinedAtFirst = KeyedStateHost.text(host.joined);
                addedAtFirst = new ArrayList<>(added);
                host.buffer.snapshot();
                first = host.keyed.harness.snapshot(1L, 1L);

                done = host.addWhereHeld(drain, done, added, "B", 3, "A", 5);
                done = done || host.slices(drain, 2);
                joinedAtSecond = KeyedStateHost.text(host.joined);
                addedAtSecond = new ArrayList<>(added);
                host.buffer.snapshot();
                second = host.keyed.harness.snapshot(2L, 2L);

                assertThat(done || host.drainAll(drain)).isTrue();
                assertThat(KeyedStateHost.text(host.joined))
                        .as(at)
                        .containsExactlyInAnyOrderElementsOf(added);
                assertKeysInArrivalOrder(KeyedStateHost.text(host.joined), added);
                assertThat(host.buffer.isEmpty()).isTrue();
            }
            assertRestoreJoinsTheRest(first, joinedAtFirst, addedAtFirst, at + ", first snapshot");
            assertRestoreJoinsTheRest(
                    second, joinedAtSecond, addedAtSecond, at + ", second snapshot");
        }
    }

    private void assertRestoreJoinsTheRest(
            OperatorSubtaskState snapshot, List<String> joined, List<String> added, String at)
            throws Exception {
        try (Host host = new Host(new KeyedStateHost(createStateBackend(), snapshot))) {
            assertThat(host.drainAll(host.buffer.startDrain())).isTrue();
            List<String> both = new ArrayList<>(joined);
            both.addAll(KeyedStateHost.text(host.joined));
            assertThat(both).as(at).containsExactlyInAnyOrderElementsOf(added);
            assertKeysInArrivalOrder(both, added);
        }
    }

    private static void assertKeysInArrivalOrder(List<String> joined, List<String> added) {
        for (String currency : List.of("A", "B", "C", "D")) {
            String prefix = "+I(" + currency + ",";
            assertThat(joined)
                    .filteredOn(row -> row.startsWith(prefix))
                    .containsExactlyElementsOf(
                            added.stream()
                                    .filter(row -> row.startsWith(prefix))
                                    .collect(Collectors.toList()));
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

        /** Adds the row and its text to the rows added. */
        void add(String currency, int rate, List<String> added) throws Exception {
            add(currency, rate);
            added.add("+I(" + currency + "," + rate + ",0)");
        }

        void add(String currency, int rate) throws Exception {
            keyed.setKey(currency);
            buffer.add(insert(currency, rate, 0).getValue());
        }

        /**
         * Drains this many slices or until the drain is done, slices of no time and slices of one
         * row taking turns; returns whether it is done.
         */
        boolean slices(ProbeBuffer.Drain drain, int slices) throws Exception {
            boolean done = false;
            for (int i = 0; i < slices && !done; i++) {
                done = i % 2 == 0 ? slice(drain) : drain.drain(1, Long.MAX_VALUE, this::join);
            }
            return done;
        }

        /**
         * Unless the drain is done: checks that it holds every key with rows not joined yet, then
         * buffers a row of each of the two currencies whose key it holds, as the join would.
         */
        boolean addWhereHeld(
                ProbeBuffer.Drain drain,
                boolean done,
                List<String> added,
                String currency,
                int rate,
                String otherCurrency,
                int otherRate)
                throws Exception {
            if (done) {
                return true;
            }
            for (String any : List.of("A", "B", "C", "D")) {
                String prefix = "+I(" + any + ",";
                long waiting =
                        added.stream().filter(row -> row.startsWith(prefix)).count()
                                - joinedOf(any);
                if (waiting > 0) {
                    assertThat(holds(drain, any)).as("%s has %s rows left", any, waiting).isTrue();
                }
            }
            if (holds(drain, currency)) {
                add(currency, rate, added);
            }
            if (holds(drain, otherCurrency)) {
                add(otherCurrency, otherRate, added);
            }
            return false;
        }

        /** Whether the drain holds rows of the currency's key, as the join asks for a probe row. */
        boolean holds(ProbeBuffer.Drain drain, String currency) throws Exception {
            keyed.setKey(currency);
            return drain.holdsCurrentKey();
        }

        long joinedOf(String currency) {
            return KeyedStateHost.text(joined).stream()
                    .filter(row -> row.startsWith("+I(" + currency + ","))
                    .count();
        }

        /** The currencies whose keys have rows in the buffer's state. */
        List<String> rowsInState() {
            return KeyedStateKeys.keysOf(
                            keyed.operator.getKeyedStateBackend(),
                            LateralSnapshotJoinStateNames.PROBE_BUFFER)
                    .stream()
                    .map(key -> ((RowData) key).getString(0).toString())
                    .collect(Collectors.toList());
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
