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

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.AfterEach;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A keyed state backend in a test harness, with a map state and value states written through
 * Flink's own state API, for the guard tests of the hooks over a {@link StoreColumn}. Keys are
 * binary rows of one string, as the join's key selectors make them, of different lengths.
 */
abstract class StoreColumnHarness {

    private static final RowDataSerializer KEY_SERIALIZER =
            new RowDataSerializer(new VarCharType(VarCharType.MAX_LENGTH));

    private static final InternalTypeInfo<RowData> VALUE_TYPE =
            InternalTypeInfo.ofFields(new VarCharType(VarCharType.MAX_LENGTH), new BigIntType());

    static final MapStateDescriptor<Long, RowData> MAP =
            new MapStateDescriptor<>("scanned", Types.LONG, VALUE_TYPE);

    static final ValueStateDescriptor<RowData> VALUE =
            new ValueStateDescriptor<>("read", VALUE_TYPE);

    /** A second value state, for a value state that has other keys. */
    static final ValueStateDescriptor<RowData> OTHER_VALUE =
            new ValueStateDescriptor<>("other", VALUE_TYPE);

    /** The backend under test. */
    private final StateBackend backend;

    /** The class of its keyed state backend, which the hooks are written for. */
    final String backendClass;

    private KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> harness;
    StateHost host;

    StoreColumnHarness(StateBackend backend, String backendClass) {
        this.backend = backend;
        this.backendClass = backendClass;
    }

    void open(int maxParallelism) throws Exception {
        open(backend, maxParallelism);
    }

    void open(StateBackend backend, int maxParallelism) throws Exception {
        host = new StateHost();
        harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        host,
                        (KeySelector<RowData, RowData>) StoreColumnHarness::keyOf,
                        InternalTypeInfo.ofFields(new VarCharType(VarCharType.MAX_LENGTH)),
                        maxParallelism,
                        1,
                        0);
        harness.setStateBackend(backend);
        harness.open();
    }

    @AfterEach
    void close() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    private static RowData keyOf(RowData row) {
        return KEY_SERIALIZER.toBinaryRow(GenericRowData.of(row.getString(0)));
    }

    static BinaryRowData key(String key) {
        return KEY_SERIALIZER.toBinaryRow(GenericRowData.of(StringData.fromString(key)));
    }

    static RowData value(String key, long number) {
        return GenericRowData.of(StringData.fromString(key), number);
    }

    /** The name of key {@code i}: of different lengths, and in no order of their bytes. */
    static String unorderedName(int i) {
        return (i * 7919 % 1000) + (i % 2 == 0 ? "" : " a key of more than seven bytes");
    }

    /** The key's value in the value state {@link #VALUE}, as text; null when it has none. */
    String valueOf(String key) throws Exception {
        host.setCurrentKey(key(key));
        RowData value = host.value(VALUE).value();
        return value == null ? null : value.getString(0) + "/" + value.getLong(1);
    }

    /**
     * The key's entries in the map state {@link #MAP}, values as text, as the map state lists them.
     */
    Map<Long, String> entriesOf(String key) throws Exception {
        host.setCurrentKey(key(key));
        Map<Long, String> entries = new LinkedHashMap<>();
        for (Map.Entry<Long, RowData> entry : host.map().entries()) {
            entries.put(
                    entry.getKey(),
                    entry.getValue().getString(0) + "/" + entry.getValue().getLong(1));
        }
        return entries;
    }

    @SuppressWarnings("unchecked")
    KeyedStateBackend<RowData> keyedBackend() {
        return (KeyedStateBackend<RowData>) host.backend();
    }

    /** An operator that only holds the states. */
    static final class StateHost extends AbstractStreamOperator<RowData>
            implements OneInputStreamOperator<RowData, RowData> {
        private static final long serialVersionUID = 1L;

        MapState<Long, RowData> map() {
            return getKeyedStateStore().getMapState(MAP);
        }

        ValueState<RowData> value(ValueStateDescriptor<RowData> descriptor) {
            return getKeyedStateStore().getState(descriptor);
        }

        KeyedStateBackend<?> backend() {
            return getKeyedStateBackend();
        }

        @Override
        public void processElement(StreamRecord<RowData> element) {}
    }
}
