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

import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.FunctionCatalog;
import org.apache.flink.table.catalog.UnresolvedIdentifier;
import org.apache.flink.table.delegation.PlannerFactory;
import org.apache.flink.table.module.Module;
import org.apache.flink.table.module.ModuleManager;

/**
 * The module manager, catalog manager and function catalog of a table environment, which the public
 * API does not expose: a planner factory is given them, in the context that {@link
 * PlannerFactoryContexts} rebuilds for an environment. The environment's public {@code loadModule}
 * would do for loading a module, but the module also needs to look functions up in the catalog and
 * database current at that moment.
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

    /**
     * The catalogs of the environment a planner factory creates a planner for, or of the
     * environment whose context {@link PlannerFactoryContexts} rebuilt.
     */
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
