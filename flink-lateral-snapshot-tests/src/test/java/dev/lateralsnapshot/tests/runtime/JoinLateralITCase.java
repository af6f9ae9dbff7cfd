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

package dev.lateralsnapshot.tests.runtime;

import dev.lateralsnapshot.LateralSnapshot;
import dev.lateralsnapshot.testutils.connectors.CollectedRows;
import dev.lateralsnapshot.testutils.connectors.CollectingSink;
import dev.lateralsnapshot.testutils.connectors.CollectingTableFactory;
import dev.lateralsnapshot.testutils.environments.StateBackendKind;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.apache.flink.table.api.Expressions.$;
import static org.apache.flink.table.api.Expressions.call;
import static org.apache.flink.table.api.Expressions.descriptor;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code orders.joinLateral(call("SNAPSHOT", ...), predicate)} on a MiniCluster, on both state
 * backends, through every way a Table API table runs: its rows are those of the SQL statement, with
 * the bounded inputs of {@link LateralSnapshotJoinITCase}.
 */
class JoinLateralITCase extends MiniClusterTestBase {

    private static final String SINK_COLUMNS = "order_id BIGINT, currency STRING, r_rate DOUBLE";

    private StreamExecutionEnvironment streams;

    @ParameterizedTest
    @EnumSource(StateBackendKind.class)
    void everyWayATableRunsGivesTheRowsOfSql(StateBackendKind backend) throws Exception {
        StreamTableEnvironment env = environment(backend);
        List<String> sql = sqlRows(env, "rates_r");
        Table joined = joinLateral(env, "rates_r");

        assertThat(rows(joined)).as("execute()").containsExactlyInAnyOrderElementsOf(sql);
        try (CollectedRows inserted = sink(env, "inserted");
                CollectedRows pipeline = sink(env, "pipeline");
                CollectedRows first = sink(env, "first_sink");
                CollectedRows second = sink(env, "second_sink")) {
            joined.executeInsert("inserted").await();
            joined.insertInto("pipeline").execute().await();
            StatementSet statements = env.createStatementSet();
            statements.add(joined.insertInto("first_sink"));
            statements.add(joinLateral(env, "rates_r").insertInto("second_sink"));
            statements.execute().await();

            assertThat(inserted.rows())
                    .as("executeInsert")
                    .containsExactlyInAnyOrderElementsOf(sql);
            assertThat(pipeline.rows())
                    .as("insertInto(...).execute()")
                    .containsExactlyInAnyOrderElementsOf(sql);
            assertThat(first.rows()).as("statement set").containsExactlyInAnyOrderElementsOf(sql);
            assertThat(second.rows()).containsExactlyInAnyOrderElementsOf(sql);
        }
    }

    @ParameterizedTest
    @EnumSource(StateBackendKind.class)
    void toDataStreamAndToChangelogStream(StateBackendKind backend) throws Exception {
        StreamTableEnvironment env = environment(backend);
        List<String> sql = sqlRows(env, "rates_r");
        try (CollectedRows appended = CollectedRows.open();
                CollectedRows changelog = CollectedRows.open()) {
            env.toDataStream(joinLateral(env, "rates_r")).sinkTo(CollectingSink.of(appended));
            env.toChangelogStream(joinLateral(env, "rates_r")).sinkTo(CollectingSink.of(changelog));
            streams.execute("joinLateral to DataStream");

            assertThat(appended.rows()).containsExactlyInAnyOrderElementsOf(sql);
            assertThat(changelog.rows()).containsExactlyInAnyOrderElementsOf(sql);
        }
    }

    @ParameterizedTest
    @EnumSource(StateBackendKind.class)
    void aPrimaryKeyBuildSideViewsAndLargerTrees(StateBackendKind backend) throws Exception {
        StreamTableEnvironment env = environment(backend);
        List<String> sql = sqlRows(env, "rates_pk_r");

        Table joined = joinLateral(env, "rates_pk_r");
        assertThat(rows(joined)).as("upsert build side").containsExactlyInAnyOrderElementsOf(sql);

        env.createTemporaryView("enriched", joined);
        assertThat(rows(env.from("enriched").where($("r_rate").isGreater(2.0))))
                .as("a view of the join, read by the Table API")
                .containsExactly("+I[3, C, 3.0]");

        List<String> twice = new ArrayList<>(sql);
        twice.addAll(sql);
        assertThat(rows(joined.unionAll(joinLateral(env, "rates_r"))))
                .as("a union of two such joins")
                .containsExactlyInAnyOrderElementsOf(twice);
    }

    /**
     * A DataStream-bridged environment like that of {@link LateralSnapshotJoinITCase}, on the
     * backend. Without {@code table.exec.source.idle-timeout}: a build subtask slow to read its
     * file would be marked idle, and the build watermark of the subtask without a file, which ends
     * at once, would flip the join before the build rows arrive.
     */
    private StreamTableEnvironment environment(StateBackendKind backend) throws Exception {
        streams = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment env = StreamTableEnvironment.create(streams);
        env.getConfig().set("table.local-time-zone", "UTC");
        env.getConfig().set("parallelism.default", "2");
        env.getConfig().set("state.backend.type", backend.type);
        LateralSnapshot.install(env);
        LateralSnapshotJoinITCase.createTables(env, directory);
        return env;
    }

    private static Table joinLateral(StreamTableEnvironment env, String rates) {
        return env.from("orders")
                .joinLateral(
                        call(
                                "SNAPSHOT",
                                env.from(rates).asArgument("input"),
                                descriptor("update_time").asArgument("on_time")),
                        $("currency").isEqual($("r_currency")))
                .select($("order_id"), $("currency"), $("r_rate"));
    }

    /** A sink table of the given name whose rows the returned collection receives. */
    private static CollectedRows sink(StreamTableEnvironment env, String name) {
        CollectedRows rows = CollectedRows.open();
        env.executeSql(createTable(name, SINK_COLUMNS, CollectingTableFactory.options(rows)));
        return rows;
    }

    /** The rows of the SQL statement, which every build side of these tests gives alike. */
    private static List<String> sqlRows(StreamTableEnvironment env, String rates) throws Exception {
        List<String> sql = rows(env.sqlQuery(sqlQuery(rates)));
        assertThat(sql)
                .containsExactlyInAnyOrder("+I[1, A, 1.5]", "+I[3, C, 3.0]", "+I[4, A, 1.5]");
        return sql;
    }

    private static String sqlQuery(String rates) {
        return "SELECT o.order_id, o.currency, r.r_rate FROM orders AS o JOIN LATERAL"
                + " SNAPSHOT(input => TABLE "
                + rates
                + ", on_time => DESCRIPTOR(update_time)) AS r ON o.currency = r.r_currency";
    }
}
