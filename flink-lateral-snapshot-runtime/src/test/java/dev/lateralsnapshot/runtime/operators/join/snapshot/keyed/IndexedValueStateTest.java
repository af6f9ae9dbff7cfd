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

import dev.lateralsnapshot.runtime.operators.join.snapshot.index.BinaryKeyIndex;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import org.junit.jupiter.api.Test;

import javax.annotation.Nullable;

import static dev.lateralsnapshot.runtime.operators.join.snapshot.JoinTestSupport.BUILD_TYPE;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.JoinTestSupport.formatRow;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.JoinTestSupport.insert;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The index over a value state of the heap backend, which the join reads a key's build rows from on
 * that backend: every write reaches the state, which checkpoints write, and the index, which reads
 * see; a restore indexes the keys it brought back.
 */
class IndexedValueStateTest {

    private static final ValueStateDescriptor<RowData> ROWS =
            new ValueStateDescriptor<>("rows", InternalTypeInfo.of(BUILD_TYPE));

    @Test
    void everyWriteReachesTheStateAndTheIndex() throws Exception {
        try (Host host = new Host(null)) {
            RowData eur = row("EUR", 1);
            RowData gbp = row("GBP", 2);
            host.update("EUR", eur);
            host.update("GBP", gbp);
            host.update("GBP", null);
            host.update("JPY", row("JPY", 3));
            host.keyed.setKey("JPY");
            host.indexed.clear();

            assertThat(host.read("EUR")).isSameAs(eur).isEqualTo(host.stored("EUR"));
            assertThat(host.read("GBP")).isNull();
            assertThat(host.stored("GBP")).isNull();
            assertThat(host.read("JPY")).isNull();
            assertThat(host.stored("JPY")).isNull();
        }
    }

    @Test
    void aKeyKeepsItsStampWhileItHasAValue() throws Exception {
        try (Host host = new Host(null)) {
            host.update("EUR", row("EUR", 1));
            host.indexed.setStamp(7);
            host.update("EUR", row("EUR", 2));
            assertThat(host.indexed.stamp()).isEqualTo(7);

            host.update("EUR", null);
            host.update("EUR", row("EUR", 3));
            assertThat(host.indexed.stamp()).isEqualTo(BinaryKeyIndex.NO_STAMP);

            // A key without a value takes no stamp.
            host.keyed.setKey("GBP");
            host.indexed.setStamp(7);
            host.update("GBP", row("GBP", 1));
            assertThat(host.indexed.stamp()).isEqualTo(BinaryKeyIndex.NO_STAMP);
        }
    }

    @Test
    void readsTheValueItWasGivenAfterASnapshot() throws Exception {
        try (Host host = new Host(null)) {
            RowData eur = row("EUR", 1);
            host.update("EUR", eur);
            host.keyed.harness.snapshot(1L, 1L);

            // The heap backend's map copies a value at its first read after a snapshot, in case
            // the reader changes it; the join never does, and its reads copy nothing.
            assertThat(host.read("EUR")).isSameAs(eur);
        }
    }

    @Test
    void aRestoreFindsTheKeysItIndexes() throws Exception {
        OperatorSubtaskState snapshot;
        try (Host host = new Host(null)) {
            host.update("EUR", row("EUR", 1));
            host.update("GBP", row("GBP", 2));
            snapshot = host.keyed.harness.snapshot(1L, 1L);
        }
        try (Host host = new Host(snapshot)) {
            assertThat(host.read("EUR")).isNull();

            for (String currency : new String[] {"EUR", "GBP", "JPY"}) {
                host.keyed.setKey(currency);
                host.indexed.indexCurrentKey();
            }

            // Restored rows are binary rows of the same fields.
            assertThat(formatRow(host.read("EUR"), BUILD_TYPE)).isEqualTo("+I(EUR,1,0)");
            assertThat(formatRow(host.read("GBP"), BUILD_TYPE)).isEqualTo("+I(GBP,2,0)");
            assertThat(host.read("JPY")).isNull();
        }
    }

    private static RowData row(String currency, int rate) {
        return insert(currency, rate, 0).getValue();
    }

    /** A heap-backed value state and its index, in the keyed state of a {@link KeyedStateHost}. */
    private static final class Host implements AutoCloseable {
        final KeyedStateHost keyed;
        final ValueState<RowData> state;
        final IndexedValueState<RowData> indexed;

        Host(@Nullable OperatorSubtaskState snapshot) throws Exception {
            keyed = new KeyedStateHost(new HashMapStateBackend(), snapshot);
            state = keyed.operator.getKeyedStateStore().getState(ROWS);
            indexed = new IndexedValueState<>(state, keyed.operator, true);
        }

        void update(String currency, @Nullable RowData row) throws Exception {
            keyed.setKey(currency);
            indexed.update(row);
        }

        @Nullable
        RowData read(String currency) throws Exception {
            keyed.setKey(currency);
            return indexed.value();
        }

        @Nullable
        RowData stored(String currency) throws Exception {
            keyed.setKey(currency);
            return state.value();
        }

        @Override
        public void close() throws Exception {
            keyed.close();
        }
    }
}
