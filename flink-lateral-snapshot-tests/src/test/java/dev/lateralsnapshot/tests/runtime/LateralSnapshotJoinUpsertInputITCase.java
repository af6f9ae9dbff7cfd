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
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.TableEnvironments;

import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static dev.lateralsnapshot.testutils.tables.RateChanges.delete;
import static dev.lateralsnapshot.testutils.tables.RateChanges.insert;
import static dev.lateralsnapshot.testutils.tables.RateChanges.update;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_PK_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs LATERAL SNAPSHOT joins against a primary-key build side with a filter on a non-key column,
 * on a MiniCluster at parallelism 2 with bounded inputs (the end of the build input flips the join
 * and applies every change, see {@link LateralSnapshotJoinITCase}). The build input keeps its
 * UPDATE_BEFORE messages: an update whose new row fails the filter must remove the old row, and one
 * whose old row failed it must add the new row.
 */
class LateralSnapshotJoinUpsertInputITCase extends MiniClusterTestBase {

    /**
     * Debezium changes of rates, filtered by {@code rate > 1.2}: A moves into the filter, B moves
     * out of it, C changes within it, D is deleted.
     */
    private static final List<String> BUILD_CHANGES =
            List.of(
                    insert("A", 1.0, "2026-01-01 10:00:00"),
                    insert("B", 2.0, "2026-01-01 10:00:00"),
                    insert("C", 3.0, "2026-01-01 10:00:00"),
                    insert("D", 4.0, "2026-01-01 10:00:00"),
                    update("A", 1.0, "2026-01-01 10:00:00", 1.5, "2026-02-01 10:00:00"),
                    update("B", 2.0, "2026-01-01 10:00:00", 0.5, "2026-02-01 10:00:00"),
                    update("C", 3.0, "2026-01-01 10:00:00", 3.5, "2026-02-01 10:00:00"),
                    delete("D", 4.0, "2026-01-01 10:00:00"));

    private TableEnvironment env;

    @BeforeEach
    void createTables() throws IOException {
        Path build = Files.createDirectories(directory.resolve("build"));
        Path probe = Files.createDirectories(directory.resolve("probe"));
        Files.write(build.resolve("changes.json"), BUILD_CHANGES);
        Files.write(probe.resolve("orders.csv"), List.of("1,A", "2,B", "3,C", "4,D", "5,A"));

        env = TableEnvironments.streaming();
        env.getConfig().set("parallelism.default", "2");
        LateralSnapshot.install(env);
        env.executeSql(
                createTable(
                        "rates_pk",
                        RATES_PK_COLUMNS,
                        Directories.filesystem(build, "debezium-json")));
        env.executeSql(
                createTable(
                        "orders",
                        "order_id BIGINT, currency STRING",
                        Directories.filesystem(probe, "csv")));
    }

    @Test
    void innerJoinWithANonKeyFilterInTheCondition() throws Exception {
        assertThat(
                        rows(
                                "SELECT o.order_id, o.currency, r.rate FROM orders AS o"
                                        + " JOIN LATERAL SNAPSHOT(input => TABLE rates_pk,"
                                        + " on_time => DESCRIPTOR(update_time)) AS r"
                                        + " ON o.currency = r.currency AND r.rate > 1.2"))
                .containsExactlyInAnyOrder("+I[1, A, 1.5]", "+I[3, C, 3.5]", "+I[5, A, 1.5]");
    }

    @Test
    void leftJoinAgainstAViewWithANonKeyFilter() throws Exception {
        env.executeSql("CREATE VIEW high_rates AS SELECT * FROM rates_pk WHERE rate > 1.2");
        assertThat(
                        rows(
                                "SELECT o.order_id, o.currency, r.rate FROM orders AS o"
                                        + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE high_rates,"
                                        + " on_time => DESCRIPTOR(update_time)) AS r"
                                        + " ON o.currency = r.currency"))
                .containsExactlyInAnyOrder(
                        "+I[1, A, 1.5]",
                        "+I[2, B, null]",
                        "+I[3, C, 3.5]",
                        "+I[4, D, null]",
                        "+I[5, A, 1.5]");
    }

    private List<String> rows(String query) throws Exception {
        return rows(env.sqlQuery(query));
    }
}
