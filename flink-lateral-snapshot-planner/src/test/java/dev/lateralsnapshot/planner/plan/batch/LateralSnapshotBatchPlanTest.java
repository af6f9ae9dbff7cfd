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

package dev.lateralsnapshot.planner.plan.batch;

import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.physicalPlan;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * In batch mode a LATERAL SNAPSHOT join is planned exactly as the regular join against the same
 * table ({@code docs/lateral-snapshot-join.md}, "Batch mode"): {@code on_time} is optional, the
 * other arguments are accepted and ignored.
 */
class LateralSnapshotBatchPlanTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT = SnapshotTestEnvironments.batchPerTest();

    /** {@code rates_b} with a time attribute, for the arguments that streaming requires. */
    @BeforeEach
    void createRatesWithATimeAttribute(TableEnvironment env, @TempDir Path directory) {
        env.executeSql(
                createTable("rates_bt", RATES_COLUMNS, Directories.filesystem(directory, "csv")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"JOIN", "LEFT JOIN"})
    void plansTheRegularJoin(String join, TableEnvironment env) {
        String snapshot =
                physicalPlan(
                        env,
                        "SELECT o.order_id, o.currency, r.rate FROM orders_b AS o "
                                + join
                                + " LATERAL SNAPSHOT(input => TABLE rates_b,"
                                + " state_ttl => INTERVAL '1' HOUR) AS r"
                                + " ON o.currency = r.currency ORDER BY o.order_id, r.rate");
        String regular =
                physicalPlan(
                        env,
                        "SELECT o.order_id, o.currency, r.rate FROM orders_b AS o "
                                + join
                                + " rates_b AS r"
                                + " ON o.currency = r.currency ORDER BY o.order_id, r.rate");
        assertThat(snapshot).isEqualTo(regular).doesNotContain("LateralSnapshotJoin");
    }

    @Test
    void hashJoinWhenTheBuildSideIsNotBroadcast(TableEnvironment env) {
        env.getConfig().set("table.optimizer.join.broadcast-threshold", "-1");
        assertThat(
                        physicalPlan(
                                env,
                                "SELECT o.order_id, r.rate FROM orders_b AS o JOIN LATERAL"
                                        + " SNAPSHOT(input => TABLE rates_b) AS r"
                                        + " ON o.currency = r.currency"))
                .containsAnyOf("HashJoin(", "AdaptiveJoin(")
                .doesNotContain("LateralSnapshotJoin");
    }

    @Test
    void computedBuildKeys(TableEnvironment env) {
        String snapshot =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.rate FROM orders_b AS o JOIN LATERAL SNAPSHOT("
                                + "input => TABLE rates_b) AS r ON o.currency = UPPER(r.currency)");
        String regular =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.rate FROM orders_b AS o JOIN rates_b AS r"
                                + " ON o.currency = UPPER(r.currency)");
        assertThat(snapshot).isEqualTo(regular);
    }

    @Test
    void everyArgumentIsAcceptedAndIgnored(TableEnvironment env) {
        String snapshot =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.rate FROM orders_b AS o, LATERAL SNAPSHOT("
                                + "input => TABLE rates_bt, on_time => DESCRIPTOR(update_time),"
                                + " load_completed_time => CAST(TIMESTAMP '2026-01-02 00:00:00'"
                                + " AS TIMESTAMP_LTZ(3)),"
                                + " load_completed_idle_timeout => INTERVAL '10' SECOND,"
                                + " state_ttl => INTERVAL '1' HOUR) AS r"
                                + " WHERE o.currency = r.currency");
        String regular =
                physicalPlan(
                        env,
                        "SELECT o.order_id, r.rate FROM orders_b AS o, rates_bt AS r"
                                + " WHERE o.currency = r.currency");
        assertThat(snapshot).isEqualTo(regular);
    }
}
