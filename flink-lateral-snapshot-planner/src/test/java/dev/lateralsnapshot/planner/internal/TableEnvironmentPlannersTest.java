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

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.delegation.Planner;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Guards for {@link TableEnvironmentPlanners}: Flink's table environments reach their planner
 * through one field only, and a planner put there is the one they use.
 */
class TableEnvironmentPlannersTest {

    @Test
    void theEnvironmentsKeepTheirPlannerInOneField() throws NoSuchFieldException {
        Field field = TableEnvironmentPlanners.plannerField();
        assertThat(field.getType())
                .as("the planner field of Flink's table environment changed its type")
                .isEqualTo(Planner.class);
        assertThat(Modifier.isStatic(field.getModifiers())).isFalse();
        for (TableEnvironment env :
                List.of(
                        TableEnvironment.create(EnvironmentSettings.inStreamingMode()),
                        TableEnvironment.create(EnvironmentSettings.inBatchMode()),
                        StreamTableEnvironment.create(
                                StreamExecutionEnvironment.getExecutionEnvironment()))) {
            assertThat(plannerFields(env.getClass()))
                    .as(
                            "%s holds its planner in other fields than '%s': a planner put in"
                                    + " that field would not be used everywhere",
                            env.getClass().getName(), TableEnvironmentPlanners.PLANNER_FIELD)
                    .containsExactly(field);
        }
    }

    @Test
    void theEnvironmentUsesThePlannerPutInItsPlace() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        Planner flinks = TableEnvironmentPlanners.of(env);
        List<String> calls = new ArrayList<>();

        TableEnvironmentPlanners.replace(env, planner -> recording(planner, calls));
        env.executeSql("CREATE TABLE t (x INT) WITH ('connector' = 'datagen')");
        env.explainSql("SELECT x FROM t");
        env.from("t").explain();
        env.executeSql("CREATE TABLE s (x INT) WITH ('connector' = 'blackhole')");
        env.createStatementSet().add(env.from("t").insertInto("s")).compilePlan();

        assertThat(TableEnvironmentPlanners.of(env)).isNotSameAs(flinks);
        assertThat(calls)
                .as("the environment does not ask the planner put in its field")
                .contains("getParser", "explain", "compilePlan");
    }

    @Test
    void theSamePlannerBackChangesNothing() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        Planner flinks = TableEnvironmentPlanners.of(env);

        TableEnvironmentPlanners.replace(env, planner -> planner);

        assertThat(TableEnvironmentPlanners.of(env)).isSameAs(flinks);
    }

    private static List<Field> plannerFields(Class<?> environmentClass) {
        List<Field> fields = new ArrayList<>();
        for (Class<?> c = environmentClass; c != null; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (Planner.class.isAssignableFrom(field.getType())) {
                    fields.add(field);
                }
            }
        }
        return fields;
    }

    /** A planner that delegates every call and records its name. */
    private static Planner recording(Planner planner, List<String> calls) {
        return (Planner)
                Proxy.newProxyInstance(
                        Planner.class.getClassLoader(),
                        new Class<?>[] {Planner.class},
                        (proxy, method, arguments) -> {
                            calls.add(method.getName());
                            try {
                                return method.invoke(planner, arguments);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
    }
}
