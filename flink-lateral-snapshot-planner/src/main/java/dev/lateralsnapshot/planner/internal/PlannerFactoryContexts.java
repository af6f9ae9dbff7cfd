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
import org.apache.flink.table.delegation.Executor;
import org.apache.flink.table.delegation.PlannerFactory;
import org.apache.flink.table.planner.calcite.FlinkContext;
import org.apache.flink.table.planner.delegation.PlannerBase;

import java.lang.reflect.Field;

/**
 * The context that Flink's planner factory was given when it created the planner of a table
 * environment, rebuilt from the environment, so that another planner can be made of the same parts.
 * Flink's planner keeps the configuration, the catalogs, the modules and the class loader in its
 * context ({@code PlannerBase#getFlinkContext}), but not the executor, which translates a statement
 * into a job and wraps the environment's {@code StreamExecutionEnvironment}: the environment holds
 * it in the protected final field {@code execEnv}, without a getter, so that field is read by
 * reflection (as {@link TableEnvironmentPlanners} writes the planner's field).
 */
public final class PlannerFactoryContexts {

    /** The field of the environment that holds its executor. */
    public static final String EXECUTOR_FIELD = "execEnv";

    private PlannerFactoryContexts() {}

    /** The context of the environment's planner, which must be Flink's own. */
    public static PlannerFactory.Context of(TableEnvironment env) {
        if (!(env instanceof TableEnvironmentImpl)
                || !(TableEnvironmentPlanners.flinkPlannerOf(env) instanceof PlannerBase)) {
            throw new TableException(
                    String.format(
                            "LATERAL SNAPSHOT can only be installed in a table environment of"
                                    + " Flink's own planner, but got %s.",
                            env.getClass().getName()));
        }
        FlinkContext context =
                ((PlannerBase) TableEnvironmentPlanners.flinkPlannerOf(env)).getFlinkContext();
        return new PlannerFactory.DefaultPlannerContext(
                executor((TableEnvironmentImpl) env),
                context.getTableConfig(),
                context.getClassLoader(),
                context.getModuleManager(),
                context.getCatalogManager(),
                context.getFunctionCatalog());
    }

    static Field executorField() throws NoSuchFieldException {
        Field field = TableEnvironmentImpl.class.getDeclaredField(EXECUTOR_FIELD);
        field.setAccessible(true);
        return field;
    }

    private static Executor executor(TableEnvironmentImpl env) {
        try {
            return (Executor) executorField().get(env);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new TableException(
                    String.format(
                            "LATERAL SNAPSHOT could not read the executor of the table"
                                    + " environment (field '%s' of %s). SQL works without it:"
                                    + " install the join in the configuration only, with"
                                    + " LateralSnapshot.install(env.getConfig()).",
                            EXECUTOR_FIELD, TableEnvironmentImpl.class.getName()),
                    e);
        }
    }
}
