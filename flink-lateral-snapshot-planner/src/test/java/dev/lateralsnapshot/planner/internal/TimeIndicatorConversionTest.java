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
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.catalog.ResolvedSchema;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.physicalPlan;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Guards for {@link TimeIndicatorConversion}: Flink's conversion of time attributes reaches the
 * join, which materializes them as Flink does, and the row type of {@code SNAPSHOT} declares the
 * types they get.
 */
class TimeIndicatorConversionTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    @Test
    void conversionLetsTheJoinMaterializeBuildRowtimes(TableEnvironment env) {
        assertThat(
                        physicalPlan(
                                env,
                                "SELECT o.order_id, r.update_time FROM orders AS o JOIN LATERAL"
                                        + " SNAPSHOT(input => TABLE rates, on_time =>"
                                        + " DESCRIPTOR(update_time)) AS r"
                                        + " ON o.currency = r.currency"))
                .as(
                        "Flink's time attribute conversion (RelTimeIndicatorConverter) no longer"
                                + " reaches FlinkLogicalLateralSnapshotJoin#accept(RelShuttle),"
                                + " so build rowtime columns keep their time attribute")
                .contains("CAST(update_time AS TIMESTAMP(3)) AS update_time");
    }

    @Test
    void conversionLetsTheJoinMaterializeProctimesOfTheCondition(TableEnvironment env) {
        env.executeSql(
                "CREATE VIEW orders_pt AS SELECT order_id, currency, PROCTIME() AS pt FROM orders");
        assertThat(
                        physicalPlan(
                                env,
                                "SELECT o.order_id, r.rate FROM orders_pt AS o JOIN LATERAL"
                                        + " SNAPSHOT(input => TABLE rates, on_time =>"
                                        + " DESCRIPTOR(update_time)) AS r"
                                        + " ON o.currency = r.currency"
                                        + " AND CAST(o.pt AS TIMESTAMP(3)) > r.update_time"))
                .as(
                        "a processing time attribute the join condition reads is no longer"
                                + " materialized with PROCTIME_MATERIALIZE below the join")
                .contains("PROCTIME_MATERIALIZE(");
    }

    @Test
    void materializedRowTypeHasThePlainTimestampsOfTheConversion(TableEnvironment env) {
        env.executeSql(
                "CREATE VIEW rates_pt AS SELECT currency, update_time, PROCTIME() AS pt FROM rates");
        ResolvedSchema schema =
                env.sqlQuery(
                                "SELECT r.update_time, r.pt FROM orders AS o JOIN LATERAL"
                                        + " SNAPSHOT(input => TABLE rates_pt, on_time =>"
                                        + " DESCRIPTOR(update_time)) AS r"
                                        + " ON o.currency = r.currency")
                        .getResolvedSchema();
        assertThat(schema.getColumnDataTypes())
                .as(
                        "FlinkTypeFactory no longer gives a time attribute the plain timestamp"
                                + " type that RelTimeIndicatorConverter materializes it to")
                .map(Object::toString)
                .containsExactly("TIMESTAMP(3)", "TIMESTAMP_LTZ(3) NOT NULL");
    }
}
