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

package dev.lateralsnapshot.planner.delegation;

import dev.lateralsnapshot.LateralSnapshot;
import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.testutils.environments.PlannerFactoryEnvironments;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.delegation.PlannerFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.planner.delegation.DefaultPlannerFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.apache.flink.table.api.Expressions.$;
import static org.apache.flink.table.api.Expressions.descriptor;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The planner factory of the drop-in jar, discovered the way Flink discovers planners: through a
 * service file in which it takes the place of {@link DefaultPlannerFactory}, as in the drop-in
 * jar's embedded planner.
 */
class LateralSnapshotPlannerFactoryTest {

    @TempDir Path tempDir;

    @Test
    void answersToFlinksDefaultIdentifier() {
        assertThat(new LateralSnapshotPlannerFactory().factoryIdentifier())
                .isEqualTo(PlannerFactory.DEFAULT_IDENTIFIER);
    }

    @Test
    void isNotListedInThePlannerModulesOwnServiceFile() {
        PlannerFactory discovered =
                FactoryUtil.discoverFactory(
                        getClass().getClassLoader(),
                        PlannerFactory.class,
                        PlannerFactory.DEFAULT_IDENTIFIER);

        assertThat(discovered).isInstanceOf(DefaultPlannerFactory.class);
    }

    @Test
    void everyStreamingEnvironmentKnowsTheJoinWithoutInstall() {
        TableEnvironment env = createWithTheWrapper(EnvironmentSettings.inStreamingMode());
        env.getConfig().set("table.local-time-zone", "UTC");
        SnapshotTestEnvironments.createTables(env, tempDir);

        assertThat(LateralSnapshot.isInstalled(env.getConfig())).isTrue();
        assertThat(env.explainSql(SnapshotTestEnvironments.SECTION_1_QUERY))
                .contains("LateralSnapshotJoin(joinType=[InnerJoin]");
    }

    @Test
    void theTableApiFindsSnapshotByNameWithoutInstall() {
        TableEnvironment env = createWithTheWrapper(EnvironmentSettings.inStreamingMode());
        SnapshotTestEnvironments.createTables(env, tempDir);

        Table rates = env.from("rates").as("r_currency", "r_rate", "r_update_time");
        Table snapshot =
                env.fromCall(
                        "SNAPSHOT",
                        rates.asArgument("input"),
                        descriptor("r_update_time").asArgument("on_time"));
        assertThat(
                        env.from("orders")
                                .leftOuterJoin(snapshot, $("currency").isEqual($("r_currency")))
                                .select($("order_id"), $("r_rate"))
                                .explain())
                .contains("LateralSnapshotJoin(joinType=[LeftOuterJoin]");
    }

    @Test
    void everyBatchEnvironmentKnowsTheJoinWithoutInstall() {
        TableEnvironment env = createWithTheWrapper(EnvironmentSettings.inBatchMode());

        assertThat(LateralSnapshot.isInstalled(env.getConfig())).isTrue();
        String threeRows = "'connector' = 'datagen', 'number-of-rows' = '3'";
        env.executeSql(createTable("orders_b", BATCH_ORDERS_COLUMNS, threeRows));
        env.executeSql(createTable("rates_b", BATCH_RATES_COLUMNS, threeRows));
        assertThat(
                        env.explainSql(
                                "SELECT o.order_id, r.rate FROM orders_b AS o"
                                        + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates_b) AS r"
                                        + " ON o.currency = r.currency"))
                .contains("Join(")
                .doesNotContain("LateralSnapshotJoin");
    }

    /**
     * Creates a table environment the way Flink does, with the planner factory discovered through
     * the thread's context class loader, as {@code PlannerFactoryUtil} does, from a service file in
     * which this factory takes the place of {@link DefaultPlannerFactory}: the layout of the
     * drop-in jar's embedded planner.
     */
    private static TableEnvironment createWithTheWrapper(EnvironmentSettings settings) {
        assertThat(PlannerFactoryEnvironments.DEFAULT_PLANNER_FACTORY)
                .isEqualTo(DefaultPlannerFactory.class.getName());
        return PlannerFactoryEnvironments.create(
                settings, LateralSnapshotPlannerFactory.class.getName());
    }
}
