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

package dev.lateralsnapshot.planner.functions;

import dev.lateralsnapshot.LateralSnapshot;
import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.physicalPlan;
import static org.apache.flink.table.api.Expressions.$;
import static org.apache.flink.table.api.Expressions.descriptor;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The row type of a LATERAL SNAPSHOT join as the query declares it, before any plan: the probe
 * side's time attributes stay, the build side's are plain timestamps, which is what the join
 * produces (docs/lateral-snapshot-join.md, "Time attributes and watermarks").
 */
class SnapshotRowTypeTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    private static final String JOIN =
            "SELECT o.order_id, o.ts, r.rate, r.update_time FROM orders AS o"
                    + " JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                    + " on_time => DESCRIPTOR(update_time)) AS r"
                    + " ON o.currency = r.currency";

    @Test
    void buildRowtimeIsPlainTimestampInTheSchemaOfTheQuery(TableEnvironment env) {
        ResolvedSchema schema = env.sqlQuery(JOIN).getResolvedSchema();

        assertThat(type(schema, "ts")).isEqualTo("TIMESTAMP(3) NOT NULL *ROWTIME*");
        assertThat(type(schema, "update_time")).isEqualTo("TIMESTAMP(3)");
    }

    @Test
    void describeOfViewOverTheJoinShowsPlainBuildTimestamp(TableEnvironment env) throws Exception {
        env.executeSql("CREATE VIEW enriched AS " + JOIN);

        List<String> columns = new ArrayList<>();
        try (CloseableIterator<Row> rows = env.executeSql("DESCRIBE enriched").collect()) {
            rows.forEachRemaining(row -> columns.add(row.getField(0) + " " + row.getField(1)));
        }
        assertThat(columns)
                .containsExactly(
                        "order_id BIGINT",
                        "ts TIMESTAMP(3) *ROWTIME*",
                        "rate DOUBLE",
                        "update_time TIMESTAMP(3)");
    }

    @Test
    void planStillOrdersBuildChangesByTheRowtimeOfTheBuildInput(TableEnvironment env) {
        // The build rowtime in the condition and in the output, and a view over the join.
        env.executeSql(
                "CREATE VIEW recent AS SELECT o.order_id, r.update_time FROM orders AS o"
                        + " JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                        + " on_time => DESCRIPTOR(update_time)) AS r"
                        + " ON o.currency = r.currency AND r.update_time < o.ts");

        assertThat(physicalPlan(env, "SELECT * FROM recent"))
                .contains("LateralSnapshotJoin(joinType=[InnerJoin]", "on_time=[update_time]");
        assertThat(type(env.from("recent").getResolvedSchema(), "update_time"))
                .isEqualTo("TIMESTAMP(3)");
    }

    @Test
    void buildRowtimeIsPlainTimestampInTheTableApiToo(TableEnvironment env) {
        Table snapshot =
                LateralSnapshot.snapshot(env.from("rates_r")).onTime("update_time").toTable();
        Table joined = env.from("orders").join(snapshot, $("currency").isEqual($("r_currency")));

        assertThat(type(snapshot.getResolvedSchema(), "update_time")).isEqualTo("TIMESTAMP(3)");
        assertThat(type(joined.getResolvedSchema(), "update_time")).isEqualTo("TIMESTAMP(3)");
        assertThat(type(joined.getResolvedSchema(), "ts"))
                .isEqualTo("TIMESTAMP(3) NOT NULL *ROWTIME*");
    }

    @Test
    void onlyTheRowtimeColumnThatFlinkAppendsKeepsItsTimeAttribute(TableEnvironment env) {
        Table byName =
                env.fromCall(
                        "SNAPSHOT",
                        env.from("rates_r").asArgument("input"),
                        descriptor("update_time").asArgument("on_time"));

        assertThat(type(byName.getResolvedSchema(), "update_time")).isEqualTo("TIMESTAMP(3)");
        assertThat(type(byName.getResolvedSchema(), "rowtime"))
                .isEqualTo("TIMESTAMP(3) NOT NULL *ROWTIME*");
    }

    private static String type(ResolvedSchema schema, String column) {
        return schema.getColumn(column).map(Column::getDataType).orElseThrow().toString();
    }
}
