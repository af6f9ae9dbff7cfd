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

import dev.lateralsnapshot.testutils.environments.StateBackendKind;

import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Batch mode (docs/lateral-snapshot-join.md, "Batch mode"). A batch job keeps no keyed state in the
 * configured backend, but runs with each configuration anyway, to show that it ignores it.
 */
class BatchModeITCase extends MiniClusterTestBase {

    private static final String LEFT_JOIN =
            "SELECT o.order_id, o.currency, r.rate FROM orders_b AS o"
                    + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates_b,"
                    + " state_ttl => INTERVAL '1' HOUR) AS r"
                    + " ON o.currency = r.currency ORDER BY o.order_id, r.rate";

    @ParameterizedTest
    @EnumSource(StateBackendKind.class)
    void leftJoinIsTheRegularJoinAgainstTheCompleteBuildSide(StateBackendKind backend)
            throws Exception {
        TableEnvironment env = batchEnvironment(backend);
        // Without watermarks and without on_time; state_ttl accepted and ignored.
        List<String> firstRun = rows(env.sqlQuery(LEFT_JOIN));
        assertThat(firstRun)
                .containsExactly(
                        "+I[1, A, 1.0]",
                        "+I[1, A, 1.5]",
                        "+I[2, B, 2.0]",
                        "+I[3, C, null]",
                        "+I[4, A, 1.0]",
                        "+I[4, A, 1.5]");
        assertThat(rows(env.sqlQuery(LEFT_JOIN))).as("a repeated run").isEqualTo(firstRun);

        // The plan is the regular join's, which Flink chooses (docs/lateral-snapshot-join.md,
        // "Batch mode"): for files this small, its cost model broadcasts the build side into a
        // nested-loop join rather than a hash or adaptive join, for the regular join just the same.
        String snapshotJoin =
                optimizedPlans(
                        env,
                        "SELECT o.order_id, o.currency, r.rate FROM orders_b AS o"
                                + " JOIN LATERAL SNAPSHOT(input => TABLE rates_b) AS r"
                                + " ON o.currency = r.currency");
        String regularJoin =
                optimizedPlans(
                        env,
                        "SELECT o.order_id, o.currency, r.rate FROM orders_b AS o"
                                + " JOIN rates_b AS r ON o.currency = r.currency");
        assertThat(snapshotJoin)
                .isEqualTo(regularJoin)
                .containsAnyOf("HashJoin(", "AdaptiveJoin(", "NestedLoopJoin(")
                .doesNotContain("LateralSnapshotJoin");
    }

    /** The optimized physical and execution plans of a query, without its syntax tree. */
    private static String optimizedPlans(TableEnvironment env, String query) {
        String explained = env.explainSql(query);
        return explained.substring(explained.indexOf("== Optimized Physical Plan =="));
    }
}
