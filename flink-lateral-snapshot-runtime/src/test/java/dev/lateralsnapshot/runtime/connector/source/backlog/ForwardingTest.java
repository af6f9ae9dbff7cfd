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

package dev.lateralsnapshot.runtime.connector.source.backlog;

import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SupportsIntermediateNoMoreSplits;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the wrapper hands the source in place of Flink's metric group and contexts: every method of
 * their interfaces, defaults included, reaches the same method of what it wraps, with the same
 * arguments. A default left to the interface would call another method of it, or nothing; both fail
 * here.
 */
class ForwardingTest {

    @Test
    void theMetricGroupForwardsEveryMethod() throws Exception {
        Recorder recorder = new Recorder();
        SourceReaderMetricGroup group = recorder.proxy(SourceReaderMetricGroup.class);

        assertForwardsEveryMethod(
                new PendingRecordsMetricGroup(group), recorder, Set.of(), Set.of(), List.of());
    }

    @Test
    void theMetricGroupKeepsThePendingRecordsGauge() {
        PendingRecordsReaderContext context =
                new PendingRecordsReaderContext(new FakeReaderContext());
        assertThat(context.pendingRecords()).isNull();

        Gauge<Long> gauge = () -> 0L;
        context.metricGroup().setPendingRecordsGauge(gauge);
        assertThat(context.pendingRecords()).isSameAs(gauge);
    }

    @Test
    void theReaderContextForwardsEveryMethodButItsMetricGroup() throws Exception {
        Recorder recorder = new Recorder();
        SourceReaderContext context = recorder.proxy(SourceReaderContext.class);

        assertForwardsEveryMethod(
                new PendingRecordsReaderContext(context),
                recorder,
                Set.of("metricGroup"),
                Set.of(),
                List.of(SourceReaderContext.class));
    }

    @Test
    void theReaderContextHasTheRuntimeContextOfTheTasks() {
        RuntimeContext runtimeContext = new Recorder().proxy(RuntimeContext.class);
        FakeReaderContext task = new FakeReaderContext();
        PendingRecordsReaderContext context = new PendingRecordsReaderContext(task);

        context.setRuntimeContext(runtimeContext);
        assertThat(task.getRuntimeContext()).isSameAs(runtimeContext);
        assertThat(context.getRuntimeContext()).isSameAs(runtimeContext);

        PendingRecordsReaderContext ofAPlainContext =
                new PendingRecordsReaderContext(new Recorder().proxy(SourceReaderContext.class));
        assertThatThrownBy(ofAPlainContext::getRuntimeContext)
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void theEnumeratorContextForwardsEveryMethod() throws Exception {
        Recorder recorder = new Recorder();
        @SuppressWarnings("unchecked")
        SplitEnumeratorContext<FixedRecordsSource.Split> context =
                recorder.proxy(
                        SplitEnumeratorContext.class, SupportsIntermediateNoMoreSplits.class);

        assertForwardsEveryMethod(
                new DiscoveryTrackingContext<>(context),
                recorder,
                Set.of(),
                // Counted: the handler and the runnable that reach the context wrap the source's.
                Set.of("callAsync", "runInCoordinatorThread"),
                List.of(SplitEnumeratorContext.class, SupportsIntermediateNoMoreSplits.class));
    }

    /**
     * Calls every method of the interfaces on the wrapper, or of the wrapper's own interfaces when
     * none are given, and checks that the recorder saw the same call.
     */
    private static void assertForwardsEveryMethod(
            Object wrapper,
            Recorder recorder,
            Set<String> notForwarded,
            Set<String> argumentsWrapped,
            List<Class<?>> interfaces)
            throws Exception {
        List<Class<?>> types =
                interfaces.isEmpty()
                        ? Arrays.asList(wrapper.getClass().getInterfaces())
                        : interfaces;
        List<String> checked = new ArrayList<>();
        for (Class<?> type : types) {
            for (Method method : type.getMethods()) {
                if (Modifier.isStatic(method.getModifiers())
                        || notForwarded.contains(method.getName())) {
                    continue;
                }
                Object[] arguments = arguments(method);
                recorder.calls.clear();
                method.invoke(wrapper, arguments);

                assertThat(recorder.calls).as(method.toString()).hasSize(1);
                Recorder.Call call = recorder.calls.get(0);
                assertThat(call.method().getName())
                        .as(method.toString())
                        .isEqualTo(method.getName());
                assertThat(call.method().getParameterTypes())
                        .as(method.toString())
                        .isEqualTo(method.getParameterTypes());
                if (!argumentsWrapped.contains(method.getName())) {
                    assertThat(call.arguments()).as(method.toString()).isEqualTo(arguments);
                }
                checked.add(method.getName());
            }
        }
        assertThat(checked).isNotEmpty();
    }

    /**
     * Arguments that tell one parameter from another: numbers by position, objects of their own.
     */
    private static Object[] arguments(Method method) {
        Class<?>[] types = method.getParameterTypes();
        Object[] arguments = new Object[types.length];
        for (int index = 0; index < types.length; index++) {
            Class<?> type = types[index];
            if (type == int.class) {
                arguments[index] = 10 + index;
            } else if (type == long.class) {
                arguments[index] = 20L + index;
            } else if (type == boolean.class) {
                arguments[index] = true;
            } else if (type == String.class) {
                arguments[index] = "argument " + index;
            } else if (type.isInterface()) {
                arguments[index] = new Recorder().proxy(type);
            }
        }
        return arguments;
    }

    /**
     * Proxies of interfaces that write down the calls on them and answer with zeros, empty proxies
     * or null.
     */
    private static final class Recorder {

        record Call(Method method, Object[] arguments) {}

        final List<Call> calls = new ArrayList<>();

        @SuppressWarnings("unchecked")
        <T> T proxy(Class<T> type, Class<?>... more) {
            Class<?>[] types = new Class<?>[more.length + 1];
            types[0] = type;
            System.arraycopy(more, 0, types, 1, more.length);
            return (T)
                    Proxy.newProxyInstance(
                            ForwardingTest.class.getClassLoader(),
                            types,
                            (proxy, method, arguments) -> {
                                switch (method.getName()) {
                                    case "equals":
                                        return proxy == arguments[0];
                                    case "hashCode":
                                        return System.identityHashCode(proxy);
                                    case "toString":
                                        return type.getSimpleName() + " proxy";
                                    default:
                                        calls.add(
                                                new Call(
                                                        method,
                                                        arguments == null
                                                                ? new Object[0]
                                                                : arguments));
                                        return answer(method.getReturnType());
                                }
                            });
        }

        private static Object answer(Class<?> type) {
            if (type == int.class) {
                return 0;
            } else if (type == long.class) {
                return 0L;
            } else if (type == boolean.class) {
                return false;
            } else if (type.isInterface()) {
                return new Recorder().proxy(type);
            }
            return null;
        }
    }
}
