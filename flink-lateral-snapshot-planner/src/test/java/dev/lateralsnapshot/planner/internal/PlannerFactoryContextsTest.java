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

package dev.lateralsnapshot.planner.internal;

import dev.lateralsnapshot.testutils.environments.PlannerFactoryEnvironments;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.delegation.Executor;
import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.delegation.PlannerFactory;
import org.apache.flink.table.planner.delegation.DefaultPlannerFactory;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Guards for {@link PlannerFactoryContexts}: Flink's table environments keep the executor their
 * planner was made with in one field, and the context rebuilt from an environment holds the very
 * objects Flink's planner factory was given for it.
 */
class PlannerFactoryContextsTest {

    /** The contexts {@link RecordingFactory} was given, in order. */
    private static final List<PlannerFactory.Context> GIVEN = new CopyOnWriteArrayList<>();

    @Test
    void theEnvironmentsKeepTheirExecutorInOneField() throws NoSuchFieldException {
        Field field = PlannerFactoryContexts.executorField();

        assertThat(field.getType())
                .as("the executor field of Flink's table environment changed its type")
                .isEqualTo(Executor.class);
        assertThat(Modifier.isStatic(field.getModifiers())).isFalse();
    }

    @Test
    void theContextHoldsWhatTheFactoryWasGiven() {
        List<Supplier<TableEnvironment>> environments =
                List.of(
                        () -> TableEnvironment.create(EnvironmentSettings.inStreamingMode()),
                        () -> TableEnvironment.create(EnvironmentSettings.inBatchMode()),
                        () ->
                                StreamTableEnvironment.create(
                                        StreamExecutionEnvironment.getExecutionEnvironment()));
        for (Supplier<TableEnvironment> environment : environments) {
            GIVEN.clear();
            TableEnvironment env =
                    PlannerFactoryEnvironments.create(
                            RecordingFactory.class.getName(), environment);
            assertThat(GIVEN).hasSize(1);
            PlannerFactory.Context given = GIVEN.get(0);

            PlannerFactory.Context context = PlannerFactoryContexts.of(env);

            String changed = "%s of the context of %s";
            assertThat(context.getExecutor())
                    .as(changed, "executor", env.getClass().getName())
                    .isSameAs(given.getExecutor());
            assertThat(context.getTableConfig())
                    .as(changed, "configuration", env.getClass().getName())
                    .isSameAs(given.getTableConfig())
                    .isSameAs(env.getConfig());
            assertThat(context.getClassLoader())
                    .as(changed, "class loader", env.getClass().getName())
                    .isSameAs(given.getClassLoader());
            assertThat(context.getModuleManager())
                    .as(changed, "module manager", env.getClass().getName())
                    .isSameAs(given.getModuleManager());
            assertThat(context.getCatalogManager())
                    .as(changed, "catalog manager", env.getClass().getName())
                    .isSameAs(given.getCatalogManager());
            assertThat(context.getFunctionCatalog())
                    .as(changed, "function catalog", env.getClass().getName())
                    .isSameAs(given.getFunctionCatalog());
        }
    }

    @Test
    void anEnvironmentOfAnotherClassIsRefused() {
        TableEnvironment foreign =
                (TableEnvironment)
                        Proxy.newProxyInstance(
                                getClass().getClassLoader(),
                                new Class<?>[] {TableEnvironment.class},
                                (proxy, method, arguments) -> null);

        assertThatThrownBy(() -> PlannerFactoryContexts.of(foreign))
                .isInstanceOf(TableException.class)
                .hasMessageStartingWith(
                        "LATERAL SNAPSHOT can only be installed in a table environment of Flink's"
                                + " own planner, but got ");
    }

    @Test
    void anEnvironmentOfAnotherPlannerIsRefused() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        TableEnvironmentPlanners.replace(
                env,
                planner ->
                        (Planner)
                                Proxy.newProxyInstance(
                                        Planner.class.getClassLoader(),
                                        new Class<?>[] {Planner.class},
                                        (proxy, method, arguments) -> null));

        assertThatThrownBy(() -> PlannerFactoryContexts.of(env))
                .isInstanceOf(TableException.class)
                .hasMessage(
                        "LATERAL SNAPSHOT can only be installed in a table environment of Flink's"
                                + " own planner, but got "
                                + env.getClass().getName()
                                + ".");
    }

    /** Flink's planner factory, recording the context it is given. */
    public static final class RecordingFactory implements PlannerFactory {

        private final PlannerFactory flinks = new DefaultPlannerFactory();

        @Override
        public String factoryIdentifier() {
            return flinks.factoryIdentifier();
        }

        @Override
        public Set<ConfigOption<?>> requiredOptions() {
            return flinks.requiredOptions();
        }

        @Override
        public Set<ConfigOption<?>> optionalOptions() {
            return flinks.optionalOptions();
        }

        @Override
        public Planner create(Context context) {
            GIVEN.add(context);
            return flinks.create(context);
        }
    }
}
