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

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Guards {@link ColumnFamilyMapStateWrites} on each backend that has a {@link StoreColumn}: what it
 * writes must read back through Flink's own map state as the same puts made through it would, which
 * pins the layout of a map state's keys and values in the store. A failure here means that a new
 * Flink version changed that layout, and the held writes of the buffered probe rows must follow it.
 */
abstract class ColumnFamilyMapStateWritesTest extends StoreColumnHarness {

    ColumnFamilyMapStateWritesTest(StateBackend backend, String backendClass) {
        super(backend, backendClass);
    }

    @Test
    void mapEntriesWrittenOutReadBackThroughTheStateInTheOrderOfTheMapKeys() throws Exception {
        open(32768);
        host.setCurrentKey(key("b"));
        host.map().put(2L, value("b", 2));
        MapStateWrites<Long, RowData> writes =
                MapStateWrites.<Long, RowData>open(keyedBackend(), MAP.getName()).orElseThrow();

        // "a" is the start of "ab": their entries must still not interleave.
        for (String key : List.of("ab", "a", "b")) {
            host.setCurrentKey(key(key));
            for (long mapKey : new long[] {300, 1, 20}) {
                writes.put(mapKey, value(key, mapKey));
            }
        }
        assertThat(entriesOf("a")).as("puts held, not written out yet").isEmpty();
        writes.write();

        assertThat(entriesOf("a"))
                .containsExactly(
                        Map.entry(1L, "a/1"), Map.entry(20L, "a/20"), Map.entry(300L, "a/300"));
        assertThat(entriesOf("ab"))
                .containsExactly(
                        Map.entry(1L, "ab/1"), Map.entry(20L, "ab/20"), Map.entry(300L, "ab/300"));
        assertThat(entriesOf("b"))
                .as("an entry written before, among the new ones")
                .containsExactly(
                        Map.entry(1L, "b/1"),
                        Map.entry(2L, "b/2"),
                        Map.entry(20L, "b/20"),
                        Map.entry(300L, "b/300"));
        host.setCurrentKey(key("a"));
        assertThat(host.map().get(20L).getLong(1))
                .as("one entry read by its map key")
                .isEqualTo(20);
    }

    @Test
    void opensOnlyOnAMapState() throws Exception {
        open(128);
        host.setCurrentKey(key("a"));
        host.value(VALUE).update(value("a", 1));
        assertThatThrownBy(() -> MapStateWrites.open(keyedBackend(), VALUE.getName()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("The state read is not a map state without namespace.");
    }
}
