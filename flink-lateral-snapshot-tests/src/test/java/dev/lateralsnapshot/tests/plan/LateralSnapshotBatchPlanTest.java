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
import dev.lateralsnapshot.config.LateralSnapshotOptions;
import dev.lateralsnapshot.config.LateralSnapshotOptions.BuildDistribution;
import dev.lateralsnapshot.testutils.connectors.Directories;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;
import dev.lateralsnapshot.testutils.environments.TableEnvironments;

import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.BATCH_RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * In batch mode a LATERAL SNAPSHOT join is planned exactly as the regular join against the same
 * table ({@code docs/lateral-snapshot-join.md}, "Batch mode"): {@code on_time} is optional, the
 * other arguments are accepted and ignored, and so is the build distribution. The plans of the
 * LATERAL SNAPSHOT statements are compared with golden files (see {@link GoldenFiles}, which also
 * says how to regenerate them); that the regular join plans the same is checked here.
 *
 * <p>Batch plans do not depend on file sizes: the sources report no statistics. Planning never
 * reads the tables' files, and their directory is not in the plans.
 */
class LateralSnapshotBatchPlanTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            new TableEnvironmentExtension(LateralSnapshotBatchPlanTest::batchEnvironment);

    @Test
    void innerJoin(TableEnvironment env) throws Exception {
        Plans.explain(
                getClass(),
                "inner_join",
                env,
                "SELECT o.order_id, o.currency, r.rate FROM orders_b AS o"
                        + " JOIN LATERAL SNAPSHOT(input => TABLE rates_b) AS r"
                        + " ON o.currency = r.currency");
    }

    @ParameterizedTest
    @ValueSource(strings = {"JOIN", "LEFT JOIN"})
    void plansTheRegularJoin(String join, TableEnvironment env) throws Exception {
        String snapshot =
                Plans.physicalPlan(
                        Plans.explain(
                                getClass(),
                                join.equals("JOIN") ? "inner_join_state_ttl" : "left_join",
                                env,
                                snapshotJoin(join)));
        String regular =
                Plans.physicalPlan(
                        env.explainSql(
                                "SELECT o.order_id, o.currency, r.rate FROM orders_b AS o "
                                        + join
                                        + " rates_b AS r"
                                        + " ON o.currency = r.currency ORDER BY o.order_id, r.rate"));
        assertThat(snapshot).isEqualTo(regular).doesNotContain("LateralSnapshotJoin");
    }

    @Test
    void planIgnoresTheBuildDistribution(TableEnvironment env) {
        String hash = env.explainSql(snapshotJoin("LEFT JOIN"));
        env.getConfig()
                .set(
                        LateralSnapshotOptions.BUILD_DISTRIBUTION,
                        BuildDistribution.BROADCAST.value());
        assertThat(env.explainSql(snapshotJoin("LEFT JOIN"))).isEqualTo(hash);
    }

    @Test
    void hashJoinWhenTheBuildSideIsNotBroadcast(TableEnvironment env) throws Exception {
        env.getConfig().set("table.optimizer.join.broadcast-threshold", "-1");
        assertThat(
                        Plans.physicalPlan(
                                Plans.explain(
                                        getClass(),
                                        "hash_join_without_broadcast",
                                        env,
                                        "SELECT o.order_id, r.rate FROM orders_b AS o JOIN LATERAL"
                                                + " SNAPSHOT(input => TABLE rates_b) AS r"
                                                + " ON o.currency = r.currency")))
                .doesNotContain("LateralSnapshotJoin");
    }

    @Test
    void computedBuildKeys(TableEnvironment env) throws Exception {
        String snapshot =
                Plans.physicalPlan(
                        Plans.explain(
                                getClass(),
                                "computed_build_key",
                                env,
                                "SELECT o.order_id, r.rate FROM orders_b AS o JOIN LATERAL"
                                        + " SNAPSHOT(input => TABLE rates_b) AS r"
                                        + " ON o.currency = UPPER(r.currency)"));
        String regular =
                Plans.physicalPlan(
                        env.explainSql(
                                "SELECT o.order_id, r.rate FROM orders_b AS o JOIN rates_b AS r"
                                        + " ON o.currency = UPPER(r.currency)"));
        assertThat(snapshot).isEqualTo(regular);
    }

    @Test
    void everyArgumentIsAcceptedAndIgnored(TableEnvironment env) throws Exception {
        String snapshot =
                Plans.physicalPlan(
                        Plans.explain(
                                getClass(),
                                "every_argument",
                                env,
                                "SELECT o.order_id, r.rate FROM orders_b AS o, LATERAL SNAPSHOT("
                                        + "input => TABLE rates_bt, on_time => DESCRIPTOR(update_time),"
                                        + " load_completed_time => CAST(TIMESTAMP '2026-01-02 00:00:00'"
                                        + " AS TIMESTAMP_LTZ(3)),"
                                        + " load_completed_idle_timeout => INTERVAL '10' SECOND,"
                                        + " state_ttl => INTERVAL '1' HOUR) AS r"
                                        + " WHERE o.currency = r.currency"));
        String regular =
                Plans.physicalPlan(
                        env.explainSql(
                                "SELECT o.order_id, r.rate FROM orders_b AS o, rates_bt AS r"
                                        + " WHERE o.currency = r.currency"));
        assertThat(snapshot).isEqualTo(regular);
    }

    /** The join of orders and rates, ordered, with a {@code state_ttl} that batch mode ignores. */
    private static String snapshotJoin(String join) {
        return "SELECT o.order_id, o.currency, r.rate FROM orders_b AS o "
                + join
                + " LATERAL SNAPSHOT(input => TABLE rates_b,"
                + " state_ttl => INTERVAL '1' HOUR) AS r"
                + " ON o.currency = r.currency ORDER BY o.order_id, r.rate";
    }

    /**
     * A batch environment in UTC with the join installed, the tables of the batch example, and
     * {@code rates_bt}, {@code rates_b} with a time attribute, for the arguments that streaming
     * requires.
     */
    private static TableEnvironment batchEnvironment(Path directory) {
        TableEnvironment env = TableEnvironments.batch();
        env.getConfig().set("table.optimizer.source.report-statistics-enabled", "false");
        LateralSnapshot.install(env);
        String csv = Directories.filesystem(directory, "csv");
        env.executeSql(createTable("orders_b", BATCH_ORDERS_COLUMNS, csv));
        env.executeSql(createTable("rates_b", BATCH_RATES_COLUMNS, csv));
        env.executeSql(createTable("rates_bt", RATES_COLUMNS, csv));
        return env;
    }
}
