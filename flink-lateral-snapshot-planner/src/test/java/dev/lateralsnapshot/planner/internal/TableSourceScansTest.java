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

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.delegation.InternalPlan;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.ExecNodeGraphInternalPlan;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Guards for {@link TableSourceScans}: Flink's scan exec node translates the source its spec holds,
 * which the spec of a loaded plan creates from the catalog on first use, and which can be replaced
 * before the translation without changing the plan's JSON form.
 */
class TableSourceScansTest {

    private static final String INSERT = "INSERT INTO sink SELECT k + 1 FROM source";

    @Test
    void theScanOfALoadedPlanTranslatesTheSourcePutInItsPlace() {
        TableEnvironment env = environment();
        String json = env.compilePlanSql(INSERT).asJsonString();
        PlannerBase planner = (PlannerBase) ((TableEnvironmentImpl) env).getPlanner();
        InternalPlan plan = planner.loadPlan(PlanReference.fromJsonString(json));
        ExecNode<?> scan = scanOf(plan);
        List<ScanTableSource> replaced = new ArrayList<>();
        List<String> translated = new ArrayList<>();

        TableSourceScans.replaceSource(
                scan,
                planner,
                source -> {
                    replaced.add(source);
                    return new RecordingSource(source, translated);
                });
        planner.translatePlan(plan);

        assertThat(replaced)
                .as("the spec of a loaded plan no longer creates the catalog table's source")
                .singleElement()
                .extracting(ScanTableSource::asSummaryString)
                .isEqualTo("DataGenTableSource");
        assertThat(translated)
                .as("the scan exec node no longer translates the source its spec holds")
                .containsExactly("DataGenTableSource");
        assertThat(((ExecNodeGraphInternalPlan) plan).asJsonString())
                .as("the source put in the spec changed the plan's JSON form")
                .isEqualTo(json);
    }

    @Test
    void onlyAScanIsATableSourceScan() {
        TableEnvironment env = environment();
        PlannerBase planner = (PlannerBase) ((TableEnvironmentImpl) env).getPlanner();
        InternalPlan plan =
                planner.loadPlan(
                        PlanReference.fromJsonString(env.compilePlanSql(INSERT).asJsonString()));
        ExecNode<?> sink =
                ((ExecNodeGraphInternalPlan) plan).getExecNodeGraph().getRootNodes().get(0);

        assertThat(TableSourceScans.isTableSourceScan(scanOf(plan))).isTrue();
        assertThat(TableSourceScans.isTableSourceScan(sink)).isFalse();
        assertThatThrownBy(() -> TableSourceScans.replaceSource(sink, planner, source -> source))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static TableEnvironment environment() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql(createTable("source", "k BIGINT", "'connector' = 'datagen'"));
        env.executeSql(createTable("sink", "k BIGINT", "'connector' = 'blackhole'"));
        return env;
    }

    /** The plan's only scan: the input of the calc that the sink reads. */
    private static ExecNode<?> scanOf(InternalPlan plan) {
        ExecNode<?> node =
                ((ExecNodeGraphInternalPlan) plan).getExecNodeGraph().getRootNodes().get(0);
        while (!node.getInputEdges().isEmpty()) {
            node = node.getInputEdges().get(0).getSource();
        }
        return node;
    }

    /** The source, which records that the scan asked it for its runtime provider. */
    private static final class RecordingSource implements ScanTableSource {

        private final ScanTableSource source;
        private final List<String> translated;

        RecordingSource(ScanTableSource source, List<String> translated) {
            this.source = source;
            this.translated = translated;
        }

        @Override
        public ChangelogMode getChangelogMode() {
            return source.getChangelogMode();
        }

        @Override
        public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
            translated.add(source.asSummaryString());
            return source.getScanRuntimeProvider(context);
        }

        @Override
        public DynamicTableSource copy() {
            return new RecordingSource((ScanTableSource) source.copy(), translated);
        }

        @Override
        public String asSummaryString() {
            return source.asSummaryString();
        }
    }
}
