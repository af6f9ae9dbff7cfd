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

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.delegation.Planner;

import java.lang.reflect.Field;
import java.util.function.UnaryOperator;

/**
 * The planner of a table environment that Flink built, and the one way to put another planner in
 * its place: Flink's environment takes its planner in the constructor and keeps it in the final
 * field {@code planner}, through which it reaches the planner for every statement, every {@code
 * Table} it runs or explains and every compiled plan. The environment has no setter, so the field
 * is written by reflection. The classes of Flink's table API are on the class path, outside any
 * named module, so that needs no JVM flag.
 *
 * <p>Only a planner that delegates to Flink's belongs there, to the one it replaces or to one made
 * of the same parts ({@link PlannerFactoryContexts}): the environment's operation tree builder and
 * the schema resolver of its catalog manager were made with the parser of the old planner and keep
 * using it, for function names and SQL expressions (computed columns, for one), whose results
 * Flink's planner then plans.
 */
public final class TableEnvironmentPlanners {

    /** The field of the environment that holds its planner. */
    public static final String PLANNER_FIELD = "planner";

    private TableEnvironmentPlanners() {}

    /** A planner that delegates to Flink's: the only kind to put in an environment's place. */
    public interface Wrapper extends Planner {

        /** Flink's planner, to which this one delegates. */
        Planner flinkPlanner();
    }

    /** The planner of the environment, as its {@code getPlanner()} returns it. */
    public static Planner of(TableEnvironment env) {
        return implementation(env).getPlanner();
    }

    /** Flink's planner of the environment, also where a {@link Wrapper} is in its place. */
    public static Planner flinkPlannerOf(TableEnvironment env) {
        Planner planner = of(env);
        return planner instanceof Wrapper ? ((Wrapper) planner).flinkPlanner() : planner;
    }

    /**
     * Replaces the planner of the environment with what {@code wrap} makes of it. Synchronized on
     * the environment, so that two threads installing at once wrap the planner once each in turn.
     */
    public static void replace(TableEnvironment env, UnaryOperator<Planner> wrap) {
        TableEnvironmentImpl implementation = implementation(env);
        synchronized (implementation) {
            Planner planner = implementation.getPlanner();
            Planner replacement = wrap.apply(planner);
            if (replacement == planner) {
                return;
            }
            try {
                plannerField().set(implementation, replacement);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new TableException(
                        String.format(
                                "LATERAL SNAPSHOT could not put its planner in the table"
                                        + " environment (field '%s' of %s). SQL works without it:"
                                        + " install the join in the configuration only, with"
                                        + " LateralSnapshot.install(env.getConfig()), and join"
                                        + " env.fromCall(\"SNAPSHOT\", ...) in the Table API.",
                                PLANNER_FIELD, TableEnvironmentImpl.class.getName()),
                        e);
            }
        }
    }

    static Field plannerField() throws NoSuchFieldException {
        Field field = TableEnvironmentImpl.class.getDeclaredField(PLANNER_FIELD);
        field.setAccessible(true);
        return field;
    }

    private static TableEnvironmentImpl implementation(TableEnvironment env) {
        if (!(env instanceof TableEnvironmentImpl)) {
            throw new TableException(
                    String.format(
                            "LATERAL SNAPSHOT needs a table environment built by Flink, but got"
                                    + " %s.",
                            env.getClass().getName()));
        }
        return (TableEnvironmentImpl) env;
    }
}
