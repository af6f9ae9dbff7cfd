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

import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinTestSupport;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The held probe rows on their own, taken in arrival order and written into a map state. */
class HeldProbeRowsTest {

    @Test
    void takesTheRowsInTheOrderTheyCameWithTheirKeys() throws Exception {
        HeldProbeRows held = new HeldProbeRows();
        assertThat(held.isEmpty()).isTrue();
        held.add(KeyedStateHost.keyOf("B"), row("B", 1));
        held.add(KeyedStateHost.keyOf("A"), row("A", 1));
        held.add(KeyedStateHost.keyOf("B"), row("B", 2));

        List<String> taken = new ArrayList<>();
        while (!held.isEmpty()) {
            RowData key = (RowData) held.nextKey();
            String row = KeyedStateHost.text(List.of(held.take())).get(0);
            taken.add(key.getString(0) + " " + row);
        }

        assertThat(taken).containsExactly("B +I(B,1,0)", "A +I(A,1,0)", "B +I(B,2,0)");
        held.add(KeyedStateHost.keyOf("C"), row("C", 1));
        assertThat(held.keysLeft()).containsExactly(KeyedStateHost.keyOf("C"));
    }

    @Test
    void writesTheRowsNotTakenUnderTheirKeysInArrivalOrderAndSetsTheCurrentKeyBack()
            throws Exception {
        try (KeyedStateHost host = new KeyedStateHost(new HashMapStateBackend(), null)) {
            MapState<Long, RowData> state =
                    host.operator
                            .getKeyedStateStore()
                            .getMapState(
                                    new MapStateDescriptor<>(
                                            "rows",
                                            Types.LONG,
                                            InternalTypeInfo.of(JoinTestSupport.BUILD_TYPE)));
            HeldProbeRows held = new HeldProbeRows();
            held.add(KeyedStateHost.keyOf("A"), row("A", 1));
            held.add(KeyedStateHost.keyOf("B"), row("B", 1));
            held.add(KeyedStateHost.keyOf("A"), row("A", 2));
            held.take();
            host.setKey("Z");
            AtomicLong sequence = new AtomicLong(10);

            held.writeTo(host.operator, row -> state.put(sequence.getAndIncrement(), row));

            assertThat(held.isEmpty()).isTrue();
            assertThat(host.operator.getCurrentKey()).isEqualTo(KeyedStateHost.keyOf("Z"));
            host.setKey("A");
            assertThat(textOf(state.entries())).containsExactly("11 +I(A,2,0)");
            host.setKey("B");
            assertThat(textOf(state.entries())).containsExactly("10 +I(B,1,0)");
        }
    }

    @Test
    void aWriteThatFailsLeavesTheRowsWrittenOutAndTheOthersHeld() throws Exception {
        try (KeyedStateHost host = new KeyedStateHost(new HashMapStateBackend(), null)) {
            HeldProbeRows held = new HeldProbeRows();
            held.add(KeyedStateHost.keyOf("A"), row("A", 1));
            held.add(KeyedStateHost.keyOf("B"), row("B", 1));
            held.add(KeyedStateHost.keyOf("C"), row("C", 1));
            List<String> written = new ArrayList<>();

            assertThatThrownBy(
                            () ->
                                    held.writeTo(
                                            host.operator,
                                            row -> {
                                                if (written.size() == 2) {
                                                    throw new IOException("disk full");
                                                }
                                                written.addAll(KeyedStateHost.text(List.of(row)));
                                            }))
                    .hasMessage("disk full");

            assertThat(written).containsExactly("+I(A,1,0)", "+I(B,1,0)");
            assertThat(held.keysLeft()).containsExactly(KeyedStateHost.keyOf("C"));
            assertThat(KeyedStateHost.text(List.of(held.take()))).containsExactly("+I(C,1,0)");
            assertThat(held.isEmpty()).isTrue();
        }
    }

    private static RowData row(String currency, int rate) {
        return JoinTestSupport.insert(currency, rate, 0).getValue();
    }

    private static List<String> textOf(Iterable<Map.Entry<Long, RowData>> entries) {
        List<String> text = new ArrayList<>();
        for (Map.Entry<Long, RowData> entry : entries) {
            text.add(entry.getKey() + " " + KeyedStateHost.text(List.of(entry.getValue())).get(0));
        }
        return text;
    }
}
