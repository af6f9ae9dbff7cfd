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

package dev.lateralsnapshot.runtime.internal;

import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.table.data.RowData;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Guards {@link ColumnFamilyValueStateWrites} on each backend that has a {@link StoreColumn}: what
 * it writes must read back through Flink's own value state as the same puts made through it would,
 * which pins the layout of a value state's keys and values in the store. A failure here means that
 * a new Flink version changed that layout, and the held writes of the build rows must follow it.
 */
abstract class ColumnFamilyValueStateWritesTest extends StoreColumnHarness {

    ColumnFamilyValueStateWritesTest(StateBackend backend, String backendClass) {
        super(backend, backendClass);
    }

    @Test
    void valuesWrittenOutReadBackThroughTheStateAndTheLastPutOfAKeyWins() throws Exception {
        open(128);
        host.setCurrentKey(key("kept"));
        host.value(VALUE).update(value("kept", 1));
        host.setCurrentKey(key(unorderedName(3)));
        host.value(VALUE).update(value(unorderedName(3), -1));
        ValueStateWrites<RowData> writes =
                ValueStateWrites.<RowData>open(keyedBackend(), VALUE.getName()).orElseThrow();

        for (int i = 0; i < 200; i++) {
            host.setCurrentKey(key(unorderedName(i)));
            writes.put(value(unorderedName(i), i));
        }
        host.setCurrentKey(key(unorderedName(7)));
        writes.put(value(unorderedName(7), 1007));

        assertThat(valueOf(unorderedName(0))).as("a put held, not written out yet").isNull();
        assertThat(valueOf(unorderedName(3)))
                .as("a value written before, not yet replaced")
                .isEqualTo(unorderedName(3) + "/-1");

        writes.write();
        host.setCurrentKey(key(unorderedName(0)));
        host.value(VALUE).update(value(unorderedName(0), -2));
        writes.write();

        assertThat(valueOf(unorderedName(0)))
                .as("a value written after the puts held were written out")
                .isEqualTo(unorderedName(0) + "/-2");
        for (int i = 1; i < 200; i++) {
            assertThat(valueOf(unorderedName(i)))
                    .as("the value of key %s", unorderedName(i))
                    .isEqualTo(unorderedName(i) + "/" + (i == 7 ? 1007 : i));
        }
        assertThat(valueOf("kept")).as("a key not written to").isEqualTo("kept/1");
    }

    @Test
    void opensOnlyOnAValueState() throws Exception {
        open(128);
        host.setCurrentKey(key("a"));
        host.map().put(1L, value("a", 1));
        assertThatThrownBy(() -> ValueStateWrites.open(keyedBackend(), MAP.getName()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("The state scanned is not a value state without namespace.");
    }
}
