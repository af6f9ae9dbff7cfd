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

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.operations.ModifyOperation;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelVisitor;
import org.apache.calcite.util.ImmutableBitSet;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Guards for {@link ChangelogNormalizations}: Flink 2.3 drops the {@code ChangelogNormalize} of an
 * upsert source for a consumer of upserts keyed like the source, but keeps it, passing upserts on,
 * when a metadata column of the source is read; the node then holds its key, no filter, and reads
 * the scan through an exchange of its own.
 */
class ChangelogNormalizationsTest {

    private static final String SOURCE_COLUMNS =
            "k STRING, v DOUBLE, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', PRIMARY KEY (k)"
                    + " NOT ENFORCED";

    private static final String SOURCE_OPTIONS =
            "'connector' = 'values', 'changelog-mode' = 'I,UA,D', 'readable-metadata' ="
                    + " 'timestamp:TIMESTAMP_LTZ(3)'";

    private static final String SINK_OPTIONS =
            "'connector' = 'values', 'sink-insert-only' = 'false', 'sink-changelog-mode-enforced'"
                    + " = 'I,UA,D'";

    @Test
    void aNormalizationKeptForAMetadataColumnIsFoundWithItsKeyAndInput() {
        TableEnvironment env = environment();
        RelNode plan = optimize(env, "INSERT INTO sink SELECT k, v, ts FROM source");

        List<RelNode> normalizations = nodesNamed(plan, "StreamPhysicalChangelogNormalize");
        assertThat(normalizations)
                .as(
                        "Flink no longer keeps the normalization of an upsert source whose metadata"
                                + " column is read by a consumer of upserts")
                .hasSize(1);
        Optional<ChangelogNormalizations.UpsertNormalization> found =
                ChangelogNormalizations.upsertNormalization(normalizations.get(0));
        assertThat(found).isPresent();
        assertThat(found.get().key().toList()).containsExactly(0);
        assertThat(nodesNamed(found.get().input(), "StreamPhysicalTableSourceScan")).hasSize(1);
        assertThat(nodesNamed(found.get().input(), "StreamPhysicalChangelogNormalize")).isEmpty();
        assertThat(found.get().input().getClass().getSimpleName())
                .as("the input below the normalization's own exchange")
                .isNotEqualTo("StreamPhysicalExchange");
    }

    @Test
    void withoutTheMetadataColumnFlinkDropsTheNormalizationItself() {
        TableEnvironment env = environment();
        RelNode plan =
                optimize(
                        env,
                        "INSERT INTO sink SELECT k, v, CAST(NULL AS TIMESTAMP_LTZ(3)) FROM source");
        assertThat(nodesNamed(plan, "StreamPhysicalChangelogNormalize")).isEmpty();
    }

    @Test
    void aNormalizationThatFiltersIsNotAnUpsertNormalization() {
        assertNoUpsertNormalization(
                environment(), "INSERT INTO sink SELECT k, v, ts FROM source WHERE v > 1");
    }

    @Test
    void deduplicatedChangelogsAreNotUpsertNormalizations() {
        TableEnvironment env = environment();
        env.getConfig().set("table.exec.source.cdc-events-duplicate", "true");
        assertNoUpsertNormalization(env, "INSERT INTO sink SELECT k, v, ts FROM source");
    }

    /** The plan of the statement has one normalization, which is not an upsert normalization. */
    private static void assertNoUpsertNormalization(TableEnvironment env, String insert) {
        List<RelNode> normalizations =
                nodesNamed(optimize(env, insert), "StreamPhysicalChangelogNormalize");
        assertThat(normalizations).hasSize(1);
        assertThat(ChangelogNormalizations.upsertNormalization(normalizations.get(0))).isEmpty();
    }

    @Test
    void onlyANormalizationKeyedByTheConsumersKeysIsLeftOut() {
        TableEnvironment env = environment();
        RelNode plan = optimize(env, "INSERT INTO sink SELECT k, v, ts FROM source");
        RelNode sinkInput = plan.getInput(0);

        assertThat(
                        ChangelogNormalizations.withoutUpsertNormalization(
                                sinkInput, ImmutableBitSet.of(0, 1)))
                .isEmpty();
        assertThat(
                        ChangelogNormalizations.withoutUpsertNormalization(
                                sinkInput, ImmutableBitSet.of(0)))
                .hasValueSatisfying(
                        input ->
                                assertThat(nodesNamed(input, "StreamPhysicalChangelogNormalize"))
                                        .isEmpty());
    }

    /**
     * With the watermark in the scan, as Kafka's source takes it, Flink casts the rowtime in a
     * projection above the normalization; the projection stays, reading the scan.
     */
    @Test
    void aProjectionAboveTheNormalizationStays() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql(
                createTable(
                        "source",
                        SOURCE_COLUMNS + ", WATERMARK FOR ts AS ts",
                        SOURCE_OPTIONS
                                + ", 'disable-lookup' = 'true', 'enable-watermark-push-down' ="
                                + " 'true'"));
        env.executeSql(
                createTable(
                        "sink",
                        "k STRING, v DOUBLE, ts TIMESTAMP_LTZ(3), PRIMARY KEY (k) NOT ENFORCED",
                        SINK_OPTIONS));
        RelNode sinkInput =
                optimize(env, "INSERT INTO sink SELECT k, v, ts FROM source").getInput(0);
        assertThat(nodesNamed(sinkInput, "StreamPhysicalChangelogNormalize")).hasSize(1);

        RelNode without =
                ChangelogNormalizations.withoutUpsertNormalization(sinkInput, ImmutableBitSet.of(0))
                        .orElseThrow();
        assertThat(nodesNamed(without, "StreamPhysicalChangelogNormalize")).isEmpty();
        assertThat(nodesNamed(without, "StreamPhysicalCalc"))
                .as("the projection that casts the rowtime")
                .hasSize(1);
        assertThat(nodesNamed(without, "StreamPhysicalTableSourceScan")).hasSize(1);
    }

    private static TableEnvironment environment() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql(createTable("source", SOURCE_COLUMNS, SOURCE_OPTIONS));
        env.executeSql(
                createTable(
                        "sink",
                        "k STRING, v DOUBLE, ts TIMESTAMP_LTZ(3), PRIMARY KEY (k) NOT ENFORCED",
                        SINK_OPTIONS));
        return env;
    }

    private static RelNode optimize(TableEnvironment env, String insert) {
        PlannerBase planner = SnapshotTestEnvironments.flinkPlanner(env);
        ModifyOperation operation =
                (ModifyOperation) ((TableEnvironmentImpl) env).getParser().parse(insert).get(0);
        RelNode rel = planner.translateToRel(operation);
        return planner.optimize(JavaScalaConversionUtil.toScala(List.of(rel))).head();
    }

    private static List<RelNode> nodesNamed(RelNode plan, String className) {
        List<RelNode> found = new ArrayList<>();
        new RelVisitor() {
            @Override
            public void visit(RelNode node, int ordinal, RelNode parent) {
                if (node.getClass().getSimpleName().equals(className)) {
                    found.add(node);
                }
                super.visit(node, ordinal, parent);
            }
        }.go(plan);
        return found;
    }
}
