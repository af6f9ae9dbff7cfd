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

import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.catalog.UnresolvedIdentifier;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.table.module.Module;
import org.apache.flink.table.planner.calcite.FlinkContext;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Guards for {@link EnvironmentCatalogs}: the catalog parts of an environment are those its
 * planner's context holds.
 */
class EnvironmentCatalogsTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    private final TableEnvironment env =
            TableEnvironment.create(EnvironmentSettings.inStreamingMode());

    @Test
    void loadsModulesIntoTheEnvironmentsModuleManager() {
        EnvironmentCatalogs catalogs = EnvironmentCatalogs.of(PlannerFactoryContexts.of(env));
        assertThat(catalogs.hasModule("core")).isTrue();
        assertThat(catalogs.hasModule("probe")).isFalse();

        catalogs.loadModule("probe", new Module() {});

        assertThat(env.listModules())
                .as(
                        "the planner's module manager (PlannerBase#getFlinkContext) is no longer"
                                + " the environment's")
                .containsExactly("core", "probe");
        env.unloadModule("probe");
        assertThat(catalogs.hasModule("probe")).isFalse();
    }

    @Test
    void thePlannersContextHoldsTheEnvironmentsCatalogs(TableEnvironment installed) {
        FlinkContext context = (SnapshotTestEnvironments.flinkPlanner(installed)).getFlinkContext();
        assertThat(context.getCatalogManager())
                .isSameAs(((TableEnvironmentImpl) installed).getCatalogManager());
        assertThat(context.getFunctionCatalog().lookupFunction(UnresolvedIdentifier.of("SNAPSHOT")))
                .as("the module loaded by install must be in the planner's function catalog")
                .isPresent();
    }

    @Test
    void looksFunctionsUpInTheCurrentCatalogAndDatabase() {
        EnvironmentCatalogs catalogs = EnvironmentCatalogs.of(PlannerFactoryContexts.of(env));
        assertThat(catalogs.isFunctionOfCurrentDatabase("shout")).isFalse();

        env.createTemporaryFunction("shout", Shout.class);
        assertThat(catalogs.isFunctionOfCurrentDatabase("shout"))
                .as(
                        "the planner's function catalog no longer finds a temporary function of"
                                + " the current catalog and database")
                .isTrue();

        env.executeSql("CREATE DATABASE other");
        env.useDatabase("other");
        assertThat(catalogs.isFunctionOfCurrentDatabase("shout"))
                .as("the lookup must follow the current database")
                .isFalse();
    }

    /** A scalar function to register. */
    public static class Shout extends ScalarFunction {
        public String eval(String text) {
            return text.toUpperCase();
        }
    }
}
