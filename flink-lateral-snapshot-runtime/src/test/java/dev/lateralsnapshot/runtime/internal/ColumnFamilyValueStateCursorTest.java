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

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.table.data.RowData;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Guards {@link ColumnFamilyValueStateCursor} on each backend that has a {@link StoreColumn}: the
 * layout of a value state's keys and values in the backend's store, and the store's order, against
 * value states written through Flink's own state API. A failure here means that a new Flink version
 * changed that layout, and the drain's reads of the build rows must follow it.
 */
abstract class ColumnFamilyValueStateCursorTest extends StoreColumnHarness {

    ColumnFamilyValueStateCursorTest(StateBackend backend, String backendClass) {
        super(backend, backendClass);
    }

    /**
     * Key "k0" to "k299" in the other state; every third key also in the state the cursor reads.
     */
    private static final int KEYS = 300;

    private void write(ValueState<RowData> state, String key, long number) throws Exception {
        host.setCurrentKey(key(key));
        state.update(value(key, number));
    }

    /** Writes every key to the other state, and every third to the one read, with its number. */
    private void writeKeys() throws Exception {
        for (int i = 0; i < KEYS; i++) {
            write(host.value(OTHER_VALUE), "k" + i, i);
            if (i % 3 == 0) {
                write(host.value(VALUE), "k" + i, i);
            }
        }
        // One key that starts another: their entries must not be taken for one another.
        write(host.value(VALUE), "k1", 1);
        write(host.value(VALUE), "k10", 10);
    }

    /** What Flink's value state reads for the key. */
    @Nullable
    private Long expected(String key) throws Exception {
        host.setCurrentKey(key(key));
        RowData row = host.value(VALUE).value();
        return row == null ? null : row.getLong(1);
    }

    private ValueStateCursor<RowData, RowData> cursor() {
        KeyedStateBackend<RowData> backend = keyedBackend();
        Optional<ValueStateCursor<RowData, RowData>> cursor =
                ValueStateCursor.open(backend, VALUE.getName());
        assertThat(cursor)
                .as(
                        "the keyed state backend is %s, not %s",
                        backend.getClass().getName(), backendClass)
                .isPresent();
        return cursor.get();
    }

    /** The keys of the other state, as the store orders them. */
    private List<String> keysInStoreOrder() {
        try (Stream<RowData> keys =
                keyedBackend().getKeys(OTHER_VALUE.getName(), VoidNamespace.INSTANCE)) {
            return keys.map(key -> key.getString(0).toString()).collect(Collectors.toList());
        }
    }

    /** Asks the cursor for the keys in this order, and Flink's value state for each. */
    private void readsAsTheState(List<String> keys) throws Exception {
        List<String> read = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        try (ValueStateCursor<RowData, RowData> cursor = cursor()) {
            for (String key : keys) {
                RowData value = cursor.value(key(key));
                read.add(key + "=" + (value == null ? null : value.getLong(1)));
                if (value != null) {
                    assertThat(value.getString(0).toString())
                            .as("the value read with the key")
                            .isEqualTo(key);
                }
            }
        }
        for (String key : keys) {
            expected.add(key + "=" + expected(key));
        }
        assertThat(read).isEqualTo(expected);
    }

    @ParameterizedTest(name = "max parallelism {0}")
    @ValueSource(ints = {128, 32768})
    void readsTheValueOfEveryKeyAskedInTheStoresOrder(int maxParallelism) throws Exception {
        open(maxParallelism);
        writeKeys();
        List<String> keys = keysInStoreOrder();
        assertThat(keys).as("the other state's keys").hasSize(KEYS);

        readsAsTheState(keys);
    }

    @Test
    void readsKeysFarApartAndKeysAskedInAnyOrder() throws Exception {
        open(128);
        writeKeys();
        List<String> inOrder = keysInStoreOrder();
        List<String> farApart = new ArrayList<>();
        for (int i = 0; i < inOrder.size(); i += 3 * ColumnFamilyValueStateCursor.MAX_STEPS) {
            farApart.add(inOrder.get(i));
        }
        // A key past the last entry, and one asked twice.
        farApart.add("zz");
        farApart.add("zz");
        readsAsTheState(farApart);

        List<String> shuffled = new ArrayList<>(inOrder);
        Collections.shuffle(shuffled, new Random(42));
        readsAsTheState(shuffled);
    }

    @Test
    void aResetSeesTheWritesMadeSince() throws Exception {
        open(128);
        writeKeys();
        List<String> keys = keysInStoreOrder();
        try (ValueStateCursor<RowData, RowData> cursor = cursor()) {
            String first = keys.get(0);
            cursor.value(key(first));
            for (String key : keys) {
                host.setCurrentKey(key(key));
                if (host.value(VALUE).value() == null) {
                    write(host.value(VALUE), key, 1000);
                } else {
                    host.value(VALUE).clear();
                }
            }
            cursor.reset();
            for (String key : keys) {
                RowData value = cursor.value(key(key));
                assertThat(value == null ? null : value.getLong(1))
                        .as("the value of %s after the reset", key)
                        .isEqualTo(expected(key));
            }
        }
    }

    @Test
    void takesOnlyAValueState() throws Exception {
        open(128);
        host.setCurrentKey(key("a"));
        host.map().put(1L, value("a", 1));
        assertThatThrownBy(() -> ValueStateCursor.open(keyedBackend(), MAP.getName()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a value state");
    }
}
