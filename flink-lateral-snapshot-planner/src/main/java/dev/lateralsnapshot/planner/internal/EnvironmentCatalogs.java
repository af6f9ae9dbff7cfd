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
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.FunctionCatalog;
import org.apache.flink.table.catalog.UnresolvedIdentifier;
import org.apache.flink.table.delegation.PlannerFactory;
import org.apache.flink.table.module.Module;
import org.apache.flink.table.module.ModuleManager;
import org.apache.flink.table.planner.calcite.FlinkContext;
import org.apache.flink.table.planner.delegation.PlannerBase;

/**
 * The module manager, catalog manager and function catalog of a table environment, which the public
 * API does not expose: the planner's context holds them ({@code PlannerBase#getFlinkContext} of the
 * planner of a {@code TableEnvironmentImpl}), and a planner factory is given them. The
 * environment's public {@code loadModule} would do for loading a module, but the module also needs
 * to look functions up in the catalog and database current at that moment.
 */
public final class EnvironmentCatalogs {

    private final ModuleManager moduleManager;
    private final CatalogManager catalogManager;
    private final FunctionCatalog functionCatalog;

    private EnvironmentCatalogs(
            ModuleManager moduleManager,
            CatalogManager catalogManager,
            FunctionCatalog functionCatalog) {
        this.moduleManager = moduleManager;
        this.catalogManager = catalogManager;
        this.functionCatalog = functionCatalog;
    }

    /** The catalogs of an environment of Flink's own planner. */
    public static EnvironmentCatalogs of(TableEnvironment env) {
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
        return new EnvironmentCatalogs(
                context.getModuleManager(),
                context.getCatalogManager(),
                context.getFunctionCatalog());
    }

    /** The catalogs of the environment a planner factory creates a planner for. */
    public static EnvironmentCatalogs of(PlannerFactory.Context context) {
        return new EnvironmentCatalogs(
                context.getModuleManager(),
                context.getCatalogManager(),
                context.getFunctionCatalog());
    }

    /** Whether a module of that name is loaded, in use or not. */
    public boolean hasModule(String name) {
        return moduleManager.listFullModules().stream()
                .anyMatch(module -> module.name().equals(name));
    }

    /** Loads a module and uses it after the modules in use. */
    public void loadModule(String name, Module module) {
        moduleManager.loadModule(name, module);
    }

    /**
     * Whether the name resolves to a function of the current catalog and database, temporary or
     * not, at the moment of the call.
     */
    public boolean isFunctionOfCurrentDatabase(String name) {
        String catalog = catalogManager.getCurrentCatalog();
        String database = catalogManager.getCurrentDatabase();
        if (catalog == null || database == null) {
            return false;
        }
        return functionCatalog
                .lookupFunction(UnresolvedIdentifier.of(catalog, database, name))
                .isPresent();
    }
}
