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

package dev.lateralsnapshot.dropin;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.delegation.ParserFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.planner.loader.PlannerModule;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ENRICHED_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Opens the built drop-in jar and checks what is inside, then lets Flink's own planner loader (from
 * {@code flink-table-api-java}, as in {@code lib/}) load the planner from it.
 *
 * <p>The jar must stand in for {@code flink-table-planner-loader-2.3.0.jar}: Flink's loader classes
 * and service file unchanged at the top level, our operator next to them (TaskManagers load it from
 * {@code lib/}), and in the embedded planner jar Flink's planner plus ours, with exactly one
 * factory per kind answering to {@code default}.
 */
class DropInJarIT {

    private static final String FACTORY_SERVICES =
            "META-INF/services/org.apache.flink.table.factories.Factory";
    private static final String NESTED_PLANNER = "flink-table-planner.jar";
    private static final String OPERATOR =
            "dev/lateralsnapshot/runtime/operators/join/snapshot/LateralSnapshotJoinOperator.class";

    private static Path jar;
    private static Map<String, byte[]> topLevel;
    private static Map<String, byte[]> nested;

    @BeforeAll
    static void openJar() throws IOException {
        jar = Path.of(System.getProperty("dropin.jar"));
        topLevel = entries(Files.newInputStream(jar));
        nested = entries(new ByteArrayInputStream(topLevel.get(NESTED_PLANNER)));
    }

    @Test
    void nameCarriesTheFlinkVersion() {
        assertThat(jar.getFileName().toString())
                .startsWith("flink-sql-lateral-snapshot-")
                .endsWith("-flink-" + System.getProperty("flink.version") + ".jar");
    }

    @Test
    void topLevelHoldsFlinksLoaderAndOurOperatorOnly() {
        List<String> classes = namesEndingWith(topLevel, ".class");

        assertThat(classes)
                .filteredOn(name -> name.startsWith("org/"))
                .containsExactlyInAnyOrder(
                        "org/apache/flink/table/planner/loader/BaseDelegateFactory.class",
                        "org/apache/flink/table/planner/loader/DelegateExecutorFactory.class",
                        "org/apache/flink/table/planner/loader/DelegatePlannerFactory.class");
        assertThat(classes)
                .filteredOn(name -> !name.startsWith("org/"))
                .contains(OPERATOR)
                .allMatch(name -> name.startsWith("dev/lateralsnapshot/runtime/"));
        assertThat(namesEndingWith(topLevel, ".jar")).containsExactly(NESTED_PLANNER);
    }

    @Test
    void topLevelServiceFileIsFlinksLoader() {
        assertThat(services(topLevel))
                .containsExactly(
                        "org.apache.flink.table.planner.loader.DelegateExecutorFactory",
                        "org.apache.flink.table.planner.loader.DelegatePlannerFactory");
    }

    @Test
    void embeddedPlannerListsOurPlannerFactoryInsteadOfFlinks() {
        assertThat(services(nested))
                .containsExactly(
                        "org.apache.flink.table.planner.delegation.DefaultExecutorFactory",
                        "org.apache.flink.table.planner.delegation.DefaultParserFactory",
                        "dev.lateralsnapshot.planner.delegation.LateralSnapshotPlannerFactory");
        assertThat(nested)
                .containsKey(
                        "org/apache/flink/table/planner/delegation/DefaultPlannerFactory.class")
                .containsKey(
                        "dev/lateralsnapshot/planner/delegation/LateralSnapshotPlannerFactory.class");
    }

    @Test
    void embeddedPlannerHoldsOurPlannerAndTheSameOperator() {
        assertThat(nested)
                .containsKey("dev/lateralsnapshot/LateralSnapshot.class")
                .containsKey(
                        "dev/lateralsnapshot/planner/parse/LateralSnapshotSqlParserImpl.class");
        for (String name : namesEndingWith(topLevel, ".class")) {
            if (name.startsWith("dev/")) {
                assertThat(nested.get(name)).as(name).isEqualTo(topLevel.get(name));
            }
        }
        assertThat(nested.keySet()).noneMatch(name -> name.startsWith("META-INF/maven/dev."));
    }

    @Test
    void flinksPlannerLoaderFindsOneDefaultFactoryPerKind() throws Exception {
        URL embedded = PlannerModule.class.getClassLoader().getResource(NESTED_PLANNER);
        assertThat(Path.of(((JarURLConnection) embedded.openConnection()).getJarFileURL().toURI()))
                .as("the embedded planner must come from the jar under test")
                .isEqualTo(jar);

        PlannerModule planner = PlannerModule.getInstance();
        assertThat(planner.loadPlannerFactory().getClass().getName())
                .isEqualTo("dev.lateralsnapshot.planner.delegation.LateralSnapshotPlannerFactory");
        assertThat(planner.loadExecutorFactory().getClass().getName())
                .isEqualTo("org.apache.flink.table.planner.delegation.DefaultExecutorFactory");
        assertThat(
                        FactoryUtil.discoverFactory(
                                        planner.getSubmoduleClassLoader(),
                                        ParserFactory.class,
                                        "default")
                                .getClass()
                                .getName())
                .isEqualTo("org.apache.flink.table.planner.delegation.DefaultParserFactory");
        assertThatThrownBy(
                        () ->
                                FactoryUtil.discoverFactory(
                                        planner.getSubmoduleClassLoader(),
                                        ParserFactory.class,
                                        "hive"))
                .hasMessageContaining("Could not find any factory for identifier 'hive'");
    }

    @Test
    void everyTableEnvironmentPlansTheJoinWithoutInstall() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql(createTable("orders", ORDERS_COLUMNS, "'connector' = 'datagen'"));
        env.executeSql(createTable("rates", RATES_COLUMNS, "'connector' = 'datagen'"));

        assertThat(
                        env.explainSql(
                                "SELECT o.order_id, r.rate FROM orders AS o"
                                        + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                        + " on_time => DESCRIPTOR(update_time)) AS r"
                                        + " ON o.currency = r.currency"))
                .contains("LateralSnapshotJoin(joinType=[LeftOuterJoin]")
                // The embedded planner's stream planner fuses the projection into the join.
                .contains("calc=[select=[order_id, rate]])");
    }

    @Test
    void compiledPlansLoadInAnotherEnvironmentWithoutInstall() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql(createTable("orders", ORDERS_COLUMNS, "'connector' = 'datagen'"));
        env.executeSql(createTable("rates", RATES_COLUMNS, "'connector' = 'datagen'"));
        env.executeSql(createTable("enriched", ENRICHED_COLUMNS, "'connector' = 'blackhole'"));
        String plan =
                env.compilePlanSql(
                                "INSERT INTO enriched SELECT o.order_id, o.currency, r.rate"
                                        + " FROM orders AS o"
                                        + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                        + " on_time => DESCRIPTOR(update_time)) AS r"
                                        + " ON o.currency = r.currency")
                        .asJsonString();

        // The plan holds the tables: the other environment needs no DDL.
        TableEnvironment other = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        assertThat(other.loadPlan(PlanReference.fromJsonString(plan)).explain())
                .contains("LateralSnapshotJoin(joinType=[LeftOuterJoin]");
    }

    // ---- reading the jar ----

    private static Map<String, byte[]> entries(InputStream jarStream) throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        try (ZipInputStream in = new ZipInputStream(jarStream)) {
            for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                if (!entry.isDirectory()) {
                    assertThat(entries.put(entry.getName(), in.readAllBytes()))
                            .as("duplicate entry %s", entry.getName())
                            .isNull();
                }
            }
        }
        return entries;
    }

    private static List<String> namesEndingWith(Map<String, byte[]> entries, String suffix) {
        return entries.keySet().stream()
                .filter(name -> name.endsWith(suffix))
                .collect(Collectors.toList());
    }

    private static List<String> services(Map<String, byte[]> entries) {
        assertThat(entries).containsKey(FACTORY_SERVICES);
        return Arrays.stream(
                        new String(entries.get(FACTORY_SERVICES), StandardCharsets.UTF_8)
                                .split("\n"))
                .map(String::trim)
                .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                .collect(Collectors.toList());
    }
}
