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

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;

import javax.annotation.Nullable;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * The keyed state of an operator that does nothing else, keyed like the standard join's build side,
 * for tests of the join's state structures on their own. Rows are returned as text, as the harness
 * tests print them.
 */
final class KeyedStateHost implements AutoCloseable {

    private static final RowDataKeySelector KEYS = JoinTestSupport.join().buildKeySelector();

    final NoOpOperator operator = new NoOpOperator();
    final KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> harness;

    /** Opens the host on the state backend, restored from the snapshot when given. */
    KeyedStateHost(StateBackend backend, @Nullable OperatorSubtaskState snapshot) throws Exception {
        harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        operator, KEYS, KEYS.getProducedType());
        harness.setStateBackend(backend);
        if (snapshot != null) {
            harness.initializeState(snapshot);
        }
        harness.open();
    }

    /** Makes the key of the build rows of this currency the current key. */
    void setKey(String currency) throws Exception {
        operator.setCurrentKey(keyOf(currency));
    }

    /** The key of the build rows of this currency, as the join's key selector makes it. */
    static RowData keyOf(String currency) throws Exception {
        return KEYS.getKey(JoinTestSupport.insert(currency, 0, 0).getValue());
    }

    static List<String> text(List<RowData> rows) {
        return rows.stream()
                .map(row -> JoinTestSupport.formatRow(row, JoinTestSupport.BUILD_TYPE))
                .collect(Collectors.toList());
    }

    /** A proxy of {@code target} that hands every call's result to {@code after}. */
    static <T> T proxy(Class<T> type, Object target, BiFunction<Method, Object, Object> after) {
        return type.cast(
                Proxy.newProxyInstance(
                        type.getClassLoader(),
                        new Class<?>[] {type},
                        (self, method, args) -> {
                            try {
                                return after.apply(method, method.invoke(target, args));
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        }));
    }

    @Override
    public void close() throws Exception {
        harness.close();
    }

    static final class NoOpOperator extends AbstractStreamOperator<RowData>
            implements OneInputStreamOperator<RowData, RowData> {
        private static final long serialVersionUID = 1L;

        @Override
        public void processElement(StreamRecord<RowData> element) {}
    }
}
