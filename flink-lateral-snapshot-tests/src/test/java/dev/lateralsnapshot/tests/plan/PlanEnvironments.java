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
package dev.lateralsnapshot.tests.plan;

import dev.lateralsnapshot.LateralSnapshot;
import dev.lateralsnapshot.planner.delegation.LateralSnapshotPlannerFactory;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.PlannerFactoryEnvironments;
import dev.lateralsnapshot.testutils.environments.TableEnvironments;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;

import java.nio.file.Path;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ONE_ORDER_PER_SECOND;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_PK_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;

/** The environment the plan tests start from. */
final class PlanEnvironments {

    private PlanEnvironments() {}

    /**
     * A streaming environment in UTC with the join installed and the reference's tables: {@code
     * rates} and {@code rates_pk}, which read Debezium files in the directory, and {@code orders}.
     */
    static TableEnvironment streaming(Path directory) {
        TableEnvironment env = TableEnvironments.streaming();
        LateralSnapshot.install(env);
        return withTables(env, directory);
    }

    /**
     * A streaming environment as {@link #streaming}, whose planner the drop-in jar's planner
     * factory created, as in its SQL Client: it fuses the Calc after a join into the join.
     */
    static TableEnvironment streamingDropIn(Path directory) {
        TableEnvironment env =
                PlannerFactoryEnvironments.create(
                        EnvironmentSettings.inStreamingMode(),
                        LateralSnapshotPlannerFactory.class.getName());
        env.getConfig().set("table.local-time-zone", "UTC");
        return withTables(env, directory);
    }

    private static TableEnvironment withTables(TableEnvironment env, Path directory) {
        String debezium = Directories.filesystem(directory, "debezium-json");
        env.executeSql(createTable("rates", RATES_COLUMNS, debezium));
        env.executeSql(createTable("rates_pk", RATES_PK_COLUMNS, debezium));
        env.executeSql(createTable("orders", ORDERS_COLUMNS, ONE_ORDER_PER_SECOND));
        return env;
    }
}
