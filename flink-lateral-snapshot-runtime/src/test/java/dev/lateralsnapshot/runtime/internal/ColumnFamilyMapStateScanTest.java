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

import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.table.data.RowData;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.spy;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

/**
 * Guards {@link ColumnFamilyMapStateScan} on each backend that has a {@link StoreColumn}: what the
 * column reads of the backend by reflection, and the layout of a map state's keys and values in the
 * backend's store, against map states written through Flink's own state API. A failure here means
 * that a new Flink version moved the backend's fields or changed that layout, and the drain of the
 * buffered probe rows must follow it.
 */
abstract class ColumnFamilyMapStateScanTest extends StoreColumnHarness {

    ColumnFamilyMapStateScanTest(StateBackend backend, String backendClass) {
        super(backend, backendClass);
    }

    void put(String key, long... mapKeys) throws Exception {
        host.setCurrentKey(key(key));
        for (long mapKey : mapKeys) {
            host.map().put(mapKey, value(key, mapKey));
        }
    }

    MapStateScan<RowData, RowData> scan() {
        KeyedStateBackend<RowData> backend = keyedBackend();
        Optional<MapStateScan<RowData, RowData>> scan = MapStateScan.open(backend, MAP.getName());
        assertThat(scan)
                .as(
                        "the keyed state backend is %s, not %s",
                        backend.getClass().getName(), backendClass)
                .isPresent();
        return scan.get();
    }

    /** Reads the scan to its end, as key/value text, with a mark where the key stays the same. */
    private static List<String> readAll(MapStateScan<RowData, RowData> scan, boolean remove)
            throws Exception {
        List<String> read = new ArrayList<>();
        while (scan.next()) {
            assertThat(scan.value().getString(0).toString())
                    .as("the value read with the key")
                    .isEqualTo(scan.key().getString(0).toString());
            read.add(
                    (scan.sameKeyAsPrevious() ? "  " : "")
                            + scan.key().getString(0).toString()
                            + scan.value().getLong(1));
            if (remove) {
                scan.removeCurrent();
            }
        }
        return read;
    }

    @ParameterizedTest(name = "max parallelism {0}")
    @ValueSource(ints = {128, 32768})
    void readsEveryEntryOfEveryKeyInTheOrderOfTheMapKeys(int maxParallelism) throws Exception {
        open(maxParallelism);
        // "a" is the start of "ab": their keys in RocksDB must still not interleave.
        put("a", 30, 1, 2);
        put("ab", 7);
        put("b", 5, 4);
        put("c", 9);

        List<String> read;
        try (MapStateScan<RowData, RowData> scan = scan()) {
            read = readAll(scan, false);
        }

        assertThat(read)
                .as(
                        "a map state's entries in the store, key by key, each key's in the order"
                                + " of its map keys (read by the scan)")
                .hasSize(7)
                .containsSubsequence("a1", "  a2", "  a30")
                .containsSubsequence("b4", "  b5")
                .contains("ab7", "c9");
        assertThat(entriesOf("a")).as("the scan leaves what it does not remove").hasSize(3);
    }

    @Test
    void removesTheEntriesItIsAskedToRemove() throws Exception {
        open(128);
        put("a", 1, 2);
        put("b", 3);
        put("c", 4, 5);

        try (MapStateScan<RowData, RowData> scan = scan()) {
            while (scan.next()) {
                if (!scan.key().getString(0).toString().equals("b")) {
                    scan.removeCurrent();
                }
            }
            scan.flush();
            assertThat(entriesOf("a")).as("removed and flushed").isEmpty();
            assertThat(entriesOf("b")).containsExactly(Map.entry(3L, "b/3"));
            assertThat(entriesOf("c")).as("removed and flushed").isEmpty();
        }
    }

    @Test
    void aRefreshGoesOnAfterTheLastEntryReturnedAndSeesEntriesWrittenSince() throws Exception {
        open(128);
        put("a", 1, 2);
        put("b", 1);
        put("c", 1);

        List<String> read = new ArrayList<>();
        try (MapStateScan<RowData, RowData> scan = scan()) {
            assertThat(scan.next()).isTrue();
            String first = scan.key().getString(0).toString();
            read.add(first + scan.value().getLong(1));
            scan.removeCurrent();
            // Written after the scan started: one to the key the scan is at, one to each other.
            put(first, 10);
            put("a", 11);
            put("b", 11);
            put("c", 11);
            scan.refresh();
            read.addAll(readAll(scan, true));
        }

        assertThat(read)
                .as("every entry once, the new ones behind the earlier ones of their key")
                .hasSize(8)
                .containsSubsequence("a1", "  a2", "  a11")
                .containsSubsequence("b1", "  b11")
                .containsSubsequence("c1", "  c11");
        assertThat(entriesOf("a")).isEmpty();
        assertThat(entriesOf("b")).isEmpty();
        assertThat(entriesOf("c")).isEmpty();
    }

    @Test
    void readsKeysEqualToTheKeySelectors() throws Exception {
        open(128);
        put("k", 1);
        try (MapStateScan<RowData, RowData> scan = scan()) {
            assertThat(scan.next()).isTrue();
            assertThat(scan.key())
                    .as("a key read from the store equals the key selector's, as the heap's do")
                    .isEqualTo(key("k"));
        }
    }

    /** A column that records the removals the scan makes, around the backend's own. */
    private StoreColumn recordedColumn() {
        KeyedStateBackend<RowData> backend = keyedBackend();
        return spy(StoreColumn.open(backend, MAP.getName()).orElseThrow());
    }

    /** Writes keys k000, k001, ... with one entry each, and returns how many. */
    private int putKeys(int count) throws Exception {
        for (int i = 0; i < count; i++) {
            put(String.format("k%03d", i), i);
        }
        return count;
    }

    private void assertAllRemovedBut(int count, List<String> kept) throws Exception {
        for (int i = 0; i < count; i++) {
            String key = String.format("k%03d", i);
            assertThat(entriesOf(key).isEmpty())
                    .as("%s removed", key)
                    .isEqualTo(!kept.contains(key));
        }
    }

    @Test
    void removesALongRunOfEntriesWithOneRangeRemovalThatSparesLaterWrites() throws Exception {
        open(128);
        int keys = putKeys(ColumnFamilyMapStateScan.RANGE_REMOVAL_MIN_ENTRIES + 36);
        StoreColumn column = recordedColumn();

        try (MapStateScan<RowData, RowData> scan =
                new ColumnFamilyMapStateScan<>(column, MAP.getName())) {
            List<String> read = readAll(scan, true);
            assertThat(read).hasSize(keys);
            scan.flush();
            assertAllRemovedBut(keys, List.of());
            // Written after the flush, inside the range that the removal spanned.
            put(String.format("k%03d", keys / 2), 1000);
        }

        verify(column, times(1)).removeRange(any(), any());
        verify(column, never()).removeEntry(any());
        assertThat(entriesOf(String.format("k%03d", keys / 2)).values())
                .as("an entry written after the range removal")
                .hasSize(1);
    }

    @Test
    void anEntryKeptOrAFlushEndsARunAndShortRunsAreRemovedEntryByEntry() throws Exception {
        open(128);
        int min = ColumnFamilyMapStateScan.RANGE_REMOVAL_MIN_ENTRIES;
        // In scan order: a long run, a kept entry, a short run, a flush, a long run.
        int keys = putKeys(min + 1 + 10 + min + 5);
        StoreColumn column = recordedColumn();
        List<String> kept = new ArrayList<>();

        try (MapStateScan<RowData, RowData> scan =
                new ColumnFamilyMapStateScan<>(column, MAP.getName())) {
            for (int position = 0; scan.next(); position++) {
                if (position == min) {
                    kept.add(scan.key().getString(0).toString());
                    continue;
                }
                scan.removeCurrent();
                if (position == min + 10) {
                    scan.flush();
                }
            }
        }

        verify(column, times(2)).removeRange(any(), any());
        verify(column, times(10)).removeEntry(any());
        assertThat(kept).hasSize(1);
        assertAllRemovedBut(keys, kept);
    }
}
