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

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.delegation.PlannerFactory;
import org.apache.flink.table.factories.Factory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.planner.delegation.DefaultPlannerFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

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

    private static final String FACTORY_SERVICES = "META-INF/services/" + Factory.class.getName();

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
    void everyStreamingEnvironmentKnowsTheJoinWithoutInstall() throws IOException {
        TableEnvironment env = createWithTheWrapper(EnvironmentSettings.inStreamingMode());
        env.getConfig().set("table.local-time-zone", "UTC");
        SnapshotTestEnvironments.createTables(env, tempDir);

        assertThat(LateralSnapshot.isInstalled(env.getConfig())).isTrue();
        assertThat(env.explainSql(SnapshotTestEnvironments.SECTION_1_QUERY))
                .contains("LateralSnapshotJoin(joinType=[InnerJoin]");
    }

    @Test
    void theTableApiFindsSnapshotByNameWithoutInstall() throws IOException {
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
    void everyBatchEnvironmentKnowsTheJoinWithoutInstall() throws IOException {
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
     * the thread's context class loader, as {@code PlannerFactoryUtil} does.
     */
    private TableEnvironment createWithTheWrapper(EnvironmentSettings settings) throws IOException {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(classLoaderListingTheWrapper());
        try {
            return TableEnvironment.create(settings);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    /**
     * A class loader whose factory service file is the test class path's, with this factory in
     * place of {@link DefaultPlannerFactory}: the layout of the drop-in jar's embedded planner.
     */
    private ClassLoader classLoaderListingTheWrapper() throws IOException {
        ClassLoader parent = getClass().getClassLoader();
        List<String> factories = new ArrayList<>();
        for (URL url : Collections.list(parent.getResources(FACTORY_SERVICES))) {
            try (BufferedReader reader =
                    new BufferedReader(
                            new InputStreamReader(url.openStream(), StandardCharsets.UTF_8))) {
                reader.lines()
                        .map(String::trim)
                        .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                        .map(
                                line ->
                                        line.equals(DefaultPlannerFactory.class.getName())
                                                ? LateralSnapshotPlannerFactory.class.getName()
                                                : line)
                        .forEach(factories::add);
            }
        }
        assertThat(factories).contains(LateralSnapshotPlannerFactory.class.getName());
        Path services = Files.write(tempDir.resolve("Factory"), factories);
        URL servicesUrl = services.toUri().toURL();
        return new ClassLoader(parent) {
            @Override
            public Enumeration<URL> getResources(String name) throws IOException {
                return name.equals(FACTORY_SERVICES)
                        ? Collections.enumeration(List.of(servicesUrl))
                        : super.getResources(name);
            }
        };
    }
}
