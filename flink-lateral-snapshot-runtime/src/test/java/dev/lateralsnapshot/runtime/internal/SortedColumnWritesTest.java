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
import org.mockito.ArgumentCaptor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.atLeastOnce;
import static org.mockito.Mockito.spy;
import static org.mockito.Mockito.verify;

/**
 * Tests {@link SortedColumnWrites} on each backend that has a {@link StoreColumn}: the puts it
 * holds reach the store in the store's order of keys, on their own once it holds many, and never
 * once dropped.
 */
abstract class SortedColumnWritesTest extends StoreColumnHarness {

    SortedColumnWritesTest(StateBackend backend, String backendClass) {
        super(backend, backendClass);
    }

    @Test
    void writesInTheStoresOrderOfKeysAndOnItsOwnWhenItHoldsMany() throws Exception {
        open(128);
        // Registers the state with the backend.
        host.value(VALUE);
        StoreColumn column = spy(StoreColumn.open(keyedBackend(), VALUE.getName()).orElseThrow());
        ValueStateWrites<RowData> writes =
                new ColumnFamilyValueStateWrites<>(column, VALUE.getName());

        int keys = SortedColumnWrites.MAX_ENTRIES + 10;
        for (int i = 0; i < keys; i++) {
            host.setCurrentKey(key(unorderedName(i) + "#" + i));
            writes.put(value(unorderedName(i), i));
        }
        assertThat(valueOf(unorderedName(1) + "#1"))
                .as("a put among the first that filled the writes, written out on its own")
                .isEqualTo(unorderedName(1) + "/1");
        assertThat(valueOf(unorderedName(keys - 1) + "#" + (keys - 1)))
                .as("a put after them, still held")
                .isNull();
        writes.write();

        ArgumentCaptor<byte[]> storeKeys = ArgumentCaptor.forClass(byte[].class);
        verify(column, atLeastOnce()).putEntry(storeKeys.capture(), any());
        List<byte[]> written = storeKeys.getAllValues();
        assertThat(written).hasSize(keys);
        List<byte[]> firstWrite =
                new ArrayList<>(written.subList(0, SortedColumnWrites.MAX_ENTRIES));
        List<byte[]> sorted = new ArrayList<>(firstWrite);
        sorted.sort(Arrays::compareUnsigned);
        assertThat(firstWrite)
                .as("the store keys of one write, in the store's order")
                .isEqualTo(sorted);
        assertThat(valueOf(unorderedName(keys - 1) + "#" + (keys - 1)))
                .isEqualTo(unorderedName(keys - 1) + "/" + (keys - 1));
    }

    @Test
    void discardedPutsNeverReachTheState() throws Exception {
        open(128);
        // Registers the state with the backend.
        host.map();
        MapStateWrites<Long, RowData> writes =
                MapStateWrites.<Long, RowData>open(keyedBackend(), MAP.getName()).orElseThrow();
        host.setCurrentKey(key("a"));
        writes.put(1L, value("a", 1));
        writes.discard();
        writes.write();
        assertThat(entriesOf("a")).isEmpty();
    }
}
