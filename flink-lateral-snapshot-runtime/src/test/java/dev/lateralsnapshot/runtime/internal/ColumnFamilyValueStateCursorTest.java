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

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
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

    /** Keys in the other state; every third also in the state the cursor reads. */
    private static final int KEYS = 600;

    /** The seeks of the cursors opened since the test started. */
    private int seeks;

    private void write(ValueState<RowData> state, String key, long number) throws Exception {
        host.setCurrentKey(key(key));
        state.update(value(key, number));
    }

    /**
     * The name of key {@code i}: every other one longer than the seven bytes a binary row holds in
     * place, so that keys of both forms and of different lengths follow one another in the store.
     */
    private static String name(int i) {
        return i % 2 == 0 ? "k" + i : "a key of more than seven bytes, " + i;
    }

    /** Writes every key to the other state, and every third to the one read, with its number. */
    private void writeKeys() throws Exception {
        for (int i = 0; i < KEYS; i++) {
            write(host.value(OTHER_VALUE), name(i), i);
            if (i % 3 == 0) {
                write(host.value(VALUE), name(i), i);
            }
        }
    }

    /** What Flink's value state reads for the key. */
    @Nullable
    private Long expected(String key) throws Exception {
        host.setCurrentKey(key(key));
        RowData row = host.value(VALUE).value();
        return row == null ? null : row.getLong(1);
    }

    /** A cursor over a column that counts the iterator's seeks. */
    private ValueStateCursor<RowData, RowData> cursor() {
        KeyedStateBackend<RowData> backend = keyedBackend();
        Optional<StoreColumn> column = StoreColumn.open(backend, VALUE.getName());
        assertThat(column)
                .as(
                        "the keyed state backend is %s, not %s",
                        backend.getClass().getName(), backendClass)
                .isPresent();
        StoreColumn counting =
                (StoreColumn)
                        Proxy.newProxyInstance(
                                StoreColumn.class.getClassLoader(),
                                new Class<?>[] {StoreColumn.class},
                                (proxy, method, args) -> {
                                    if (method.getName().equals("seek")) {
                                        seeks++;
                                    }
                                    try {
                                        return method.invoke(column.get(), args);
                                    } catch (InvocationTargetException e) {
                                        throw e.getCause();
                                    }
                                });
        return new ColumnFamilyValueStateCursor<>(counting, VALUE.getName());
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
        assertThat(seeks)
                .as("keys asked in the store's order, a few entries apart: one seek, then steps")
                .isEqualTo(1);
    }

    @Test
    void seeksToAKeyFarAhead() throws Exception {
        open(128);
        writeKeys();
        List<String> inOrder = keysInStoreOrder();
        List<String> farApart = new ArrayList<>();
        // Every third key has a value: a gap of this many keys holds twice the steps' entries.
        for (int i = 0; i < inOrder.size(); i += 6 * ColumnFamilyValueStateCursor.MAX_STEPS) {
            farApart.add(inOrder.get(i));
        }
        readsAsTheState(farApart);
        assertThat(seeks).as("a seek for every key").isEqualTo(farApart.size());
    }

    @Test
    void readsKeysAskedInAnyOrder() throws Exception {
        open(128);
        writeKeys();
        List<String> shuffled = new ArrayList<>(keysInStoreOrder());
        Collections.shuffle(shuffled, new Random(42));
        // A key that no state has, and one asked twice in a row.
        shuffled.add(0, "no such key");
        shuffled.add(shuffled.get(1));
        shuffled.add(shuffled.get(shuffled.size() - 1));
        readsAsTheState(shuffled);
    }

    @Test
    void aResetSeesTheWritesMadeSince() throws Exception {
        open(128);
        writeKeys();
        List<String> keys = keysInStoreOrder();
        try (ValueStateCursor<RowData, RowData> cursor = cursor()) {
            cursor.value(key(keys.get(0)));
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
