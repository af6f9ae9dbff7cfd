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

import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.planner.factories.TestValuesTableFactory;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A LATERAL SNAPSHOT join over an upsert source (upserts and deletes by key, as {@code
 * upsert-kafka} sends them) whose {@code on_time} is a metadata column, the record's timestamp: the
 * join reads the source without Flink's {@code ChangelogNormalize} and applies the upserts itself.
 * An upsert replaces its key's row, a repeated one changes nothing, and a delete that carries only
 * the key (a tombstone) removes the key's row at the delete's own time; a delete of a key that has
 * no row removes nothing. MiniCluster at parallelism 2, bounded inputs: the end of the build input
 * flips the join and applies every change.
 */
class UpsertBuildSourceITCase extends MiniClusterTestBase {

    private static final Instant LOADED = Instant.parse("2026-01-01T10:00:00Z");
    private static final Instant CHANGED = LOADED.plusSeconds(60);

    private static final String QUERY =
            "SELECT o.order_id, o.currency, r.rate FROM orders AS o"
                    + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                    + " on_time => DESCRIPTOR(record_time)) AS r"
                    + " ON o.currency = r.currency";

    static Stream<Arguments> backendsAndWatermarks() {
        return Arrays.stream(StateBackendKind.values())
                .flatMap(
                        backend ->
                                Stream.of(
                                        Arguments.of(backend, false), Arguments.of(backend, true)));
    }

    /**
     * On both backends, with the watermark assigned after the scan and in the scan (as Kafka's
     * source takes it, which puts the rowtime's cast above the normalization).
     */
    @ParameterizedTest(name = "{0}, watermark in the scan: {1}")
    @MethodSource("backendsAndWatermarks")
    void upsertsAndKeyOnlyDeletesApplyWithoutANormalization(
            StateBackendKind backend, boolean watermarkInTheScan) throws Exception {
        TableEnvironment env = boundedInputEnvironment(backend);
        String rates =
                TestValuesTableFactory.registerData(
                        List.of(
                                Row.ofKind(RowKind.UPDATE_AFTER, "A", 1.0, LOADED),
                                Row.ofKind(RowKind.UPDATE_AFTER, "B", 2.0, LOADED),
                                Row.ofKind(RowKind.UPDATE_AFTER, "C", 3.0, LOADED),
                                Row.ofKind(RowKind.UPDATE_AFTER, "A", 1.5, CHANGED),
                                Row.ofKind(RowKind.DELETE, "B", null, CHANGED),
                                Row.ofKind(RowKind.DELETE, "X", null, CHANGED),
                                Row.ofKind(RowKind.UPDATE_AFTER, "C", 3.0, LOADED)));
        String orders =
                TestValuesTableFactory.registerData(
                        List.of(
                                Row.of(1L, "A"),
                                Row.of(2L, "B"),
                                Row.of(3L, "C"),
                                Row.of(4L, "X")));
        env.executeSql(
                createTable(
                        "rates",
                        "currency STRING, rate DOUBLE, record_time TIMESTAMP_LTZ(3) METADATA FROM"
                                + " 'timestamp', WATERMARK FOR record_time AS record_time,"
                                + " PRIMARY KEY (currency) NOT ENFORCED",
                        "'connector' = 'values', 'data-id' = '"
                                + rates
                                + "', 'changelog-mode' = 'UA,D', 'bounded' = 'true',"
                                + " 'readable-metadata' = 'timestamp:TIMESTAMP_LTZ(3)',"
                                + " 'disable-lookup' = 'true', 'enable-watermark-push-down' = '"
                                + watermarkInTheScan
                                + "'"));
        env.executeSql(
                createTable(
                        "orders",
                        "order_id BIGINT, currency STRING",
                        "'connector' = 'values', 'data-id' = '"
                                + orders
                                + "', 'bounded' = 'true'"));

        assertThat(env.explainSql(QUERY, ExplainDetail.CHANGELOG_MODE))
                .doesNotContain("ChangelogNormalize");
        assertThat(rows(env.sqlQuery(QUERY)))
                .containsExactlyInAnyOrder(
                        "+I[1, A, 1.5]", "+I[2, B, null]", "+I[3, C, 3.0]", "+I[4, X, null]");
    }
}
