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

import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.ValidationException;

import org.apache.commons.lang3.exception.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SECTION_1_QUERY;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Every planning-time error of {@code docs/lateral-snapshot-join.md} ("Planning errors"), word for
 * word, with the statements of Flink 2.4's release-testing plan, and the errors for argument
 * mistakes. Each error must reach the user as a {@link ValidationException} (the non-determinism
 * check: a {@link TableException}) with the exact message somewhere in its cause chain, never as a
 * Calcite stack trace, an assertion error or a null pointer.
 */
class LateralSnapshotValidationTest {

    private static final String SNAPSHOT_RATES =
            "SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(update_time))";

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    // ---- the planning errors of the reference page ----

    @Test
    void onTimeWithoutWatermark(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates_nowm,"
                                + " on_time => DESCRIPTOR(update_time)) AS r"),
                "Argument 'on_time' of SNAPSHOT must reference a rowtime attribute (a column with"
                        + " a watermark), but column 'update_time' is not one.");
    }

    @Test
    void missingOnTimeInStreaming(TableEnvironment env) {
        assertRejected(
                env,
                fragment("JOIN LATERAL SNAPSHOT(input => TABLE rates) AS r"),
                "LATERAL SNAPSHOT requires the 'on_time' argument to identify the build-side"
                        + " rowtime attribute.");
    }

    @Test
    void onTimeOfWrongType(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(rate))"
                                + " AS r"),
                "Argument 'on_time' of SNAPSHOT must reference a TIMESTAMP or TIMESTAMP_LTZ column"
                        + " (up to precision 3), but column 'rate' has type 'DOUBLE'.");
    }

    @ParameterizedTest
    @ValueSource(strings = {"JOIN", "LEFT JOIN"})
    void updatingProbeSide(String join, TableEnvironment env) {
        // The plan selects o.order_id, which probe_agg does not have; c is its other column.
        assertRejectedWithPrefix(
                env,
                "EXPLAIN SELECT o.currency, o.c FROM probe_agg AS o "
                        + join
                        + " LATERAL "
                        + SNAPSHOT_RATES
                        + " AS r ON o.currency = r.currency",
                ValidationException.class,
                "The probe (left) input of LATERAL SNAPSHOT join doesn't support consuming update"
                        + " changes ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"RIGHT", "FULL"})
    void rightAndFullJoin(String joinType, TableEnvironment env) {
        assertRejected(
                env,
                fragment(joinType + " JOIN LATERAL " + SNAPSHOT_RATES + " AS r"),
                "LATERAL SNAPSHOT join only supports INNER JOIN and LEFT OUTER JOIN, but was "
                        + joinType
                        + " JOIN.");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "SELECT * FROM TABLE(" + SNAPSHOT_RATES + ")",
                "SELECT * FROM LATERAL TABLE(" + SNAPSHOT_RATES + ") AS r",
                "SELECT * FROM LATERAL TABLE("
                        + SNAPSHOT_RATES
                        + ") AS r JOIN orders AS o"
                        + " ON o.currency = r.currency",
                "SELECT * FROM orders WHERE currency IN (SELECT currency FROM TABLE("
                        + SNAPSHOT_RATES
                        + "))",
                "SELECT " + SNAPSHOT_RATES + " FROM orders",
                "SELECT order_id FROM orders WHERE " + SNAPSHOT_RATES + " IS NOT NULL"
            })
    void snapshotOutsideTheBuildSideOfALateralJoin(String query, TableEnvironment env) {
        assertRejectedWithPrefix(
                env,
                query,
                ValidationException.class,
                "The SNAPSHOT function can only be used as the build side (right-hand side) of a"
                        + " LATERAL join. ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"PARTITION BY currency", "ORDER BY update_time"})
    void inputWithPartitionOrOrder(String clause, TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates "
                                + clause
                                + ", on_time => DESCRIPTOR(update_time)) AS r"),
                "Argument 'input' of SNAPSHOT takes no PARTITION BY or ORDER BY: the join"
                        + " partitions the build side by the equality keys of its ON clause and"
                        + " orders its changes by 'on_time'.");
    }

    @Test
    void nonDeterministicBuildColumnWithTryResolve(TableEnvironment env) {
        env.getConfig().set("table.optimizer.non-deterministic-update.strategy", "TRY_RESOLVE");
        assertRejectedWithPrefix(
                env,
                "EXPLAIN SELECT o.order_id, r.rate, r.r FROM orders AS o"
                        + " JOIN LATERAL SNAPSHOT(input => TABLE rates_rand,"
                        + " on_time => DESCRIPTOR(update_time)) AS r ON o.currency = r.currency",
                TableException.class,
                "The column(s): r(generated by non-deterministic function: RAND ) can not satisfy"
                        + " the determinism requirement ");
    }

    @Test
    void nonDeterministicBuildColumnIsAcceptedWhenIgnored(TableEnvironment env) {
        assertThatCode(
                        () ->
                                env.explainSql(
                                        "SELECT o.order_id, r.rate, r.r FROM orders AS o"
                                                + " JOIN LATERAL SNAPSHOT(input => TABLE"
                                                + " rates_rand, on_time =>"
                                                + " DESCRIPTOR(update_time)) AS r"
                                                + " ON o.currency = r.currency"))
                .doesNotThrowAnyException();
    }

    @Test
    void nonDeterministicBuildColumnIsAcceptedWithTryResolveWhenNotSelected(TableEnvironment env) {
        env.getConfig().set("table.optimizer.non-deterministic-update.strategy", "TRY_RESOLVE");
        assertThatCode(
                        () ->
                                env.explainSql(
                                        "SELECT o.order_id, r.rate FROM orders AS o"
                                                + " JOIN LATERAL SNAPSHOT(input => TABLE"
                                                + " rates_rand, on_time =>"
                                                + " DESCRIPTOR(update_time)) AS r"
                                                + " ON o.currency = r.currency"))
                .doesNotThrowAnyException();
    }

    @Test
    void validQueriesOfTheSameSectionPass(TableEnvironment env) {
        env.getConfig().set("table.optimizer.non-deterministic-update.strategy", "TRY_RESOLVE");
        assertThatCode(() -> env.explainSql(SECTION_1_QUERY)).doesNotThrowAnyException();
    }

    // ---- argument mistakes ----

    @Test
    void unknownArgumentName(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time), ttl => INTERVAL '1' HOUR)"
                                + " AS r"),
                "Unknown argument 'ttl' of SNAPSHOT. Supported arguments are: input, on_time,"
                        + " load_completed_time, load_completed_idle_timeout, state_ttl.");
    }

    @Test
    void argumentNamesAreCaseSensitiveLikeColumnNames(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(INPUT => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time)) AS r"),
                "Unknown argument 'INPUT' of SNAPSHOT. Supported arguments are: input, on_time,"
                        + " load_completed_time, load_completed_idle_timeout, state_ttl.");
    }

    @Test
    void argumentGivenTwice(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time),"
                                + " on_time => DESCRIPTOR(update_time)) AS r"),
                "Argument 'on_time' of SNAPSHOT is given more than once.");
    }

    @Test
    void missingInput(TableEnvironment env) {
        assertRejected(
                env,
                fragment("JOIN LATERAL SNAPSHOT(on_time => DESCRIPTOR(update_time)) AS r"),
                "SNAPSHOT requires the 'input' argument, the build-side table, for example"
                        + " 'input => TABLE rates'.");
    }

    @Test
    void inputThatIsNotATable(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => rates, on_time => DESCRIPTOR(update_time))"
                                + " AS r"),
                "Argument 'input' of SNAPSHOT must be a table, for example 'input => TABLE"
                        + " rates', but was 'rates'.");
    }

    @Test
    void onTimeNamingAMissingColumn(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(updated)) AS r"),
                "Argument 'on_time' of SNAPSHOT must reference a column of the input, but column"
                        + " 'updated' does not exist. Available columns: currency, rate,"
                        + " update_time.");
    }

    @Test
    void onTimeThatIsNotADescriptor(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates, on_time => 'update_time')"
                                + " AS r"),
                "Argument 'on_time' of SNAPSHOT must be a DESCRIPTOR of one column, for example"
                        + " 'on_time => DESCRIPTOR(update_time)', but was ''update_time''.");
    }

    @Test
    void onTimeOfTooHighPrecision(TableEnvironment env) {
        env.executeSql(
                createTable(
                        "rates_micros",
                        "currency STRING, update_time TIMESTAMP(6)",
                        "'connector' = 'datagen'"));
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates_micros,"
                                + " on_time => DESCRIPTOR(update_time)) AS r"),
                "Argument 'on_time' of SNAPSHOT must reference a TIMESTAMP or TIMESTAMP_LTZ column"
                        + " (up to precision 3), but column 'update_time' has type"
                        + " 'TIMESTAMP(6)'.");
    }

    @Test
    void intervalOfWrongType(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time), state_ttl => 3600) AS r"),
                "Argument 'state_ttl' of SNAPSHOT must be a constant day-time INTERVAL, for"
                        + " example INTERVAL '10' SECOND, but has type 'INT NOT NULL'.");
    }

    @Test
    void yearMonthInterval(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time),"
                                + " load_completed_idle_timeout => INTERVAL '1' MONTH) AS r"),
                "Argument 'load_completed_idle_timeout' of SNAPSHOT must be a constant day-time"
                        + " INTERVAL, for example INTERVAL '10' SECOND, but has type"
                        + " 'INTERVAL MONTH NOT NULL'.");
    }

    @Test
    void loadCompletedTimeOfWrongType(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time),"
                                + " load_completed_time => TIMESTAMP '2026-01-02 00:00:00') AS r"),
                "Argument 'load_completed_time' of SNAPSHOT must be a constant TIMESTAMP_LTZ(3)"
                        + " expression, for example CAST(TIMESTAMP '2026-01-02 00:00:00' AS"
                        + " TIMESTAMP_LTZ(3)), but has type 'TIMESTAMP(0) NOT NULL'.");
    }

    @Test
    void nonConstantInterval(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time),"
                                + " state_ttl => INTERVAL '1' SECOND * o.order_id) AS r"),
                "Argument 'state_ttl' of SNAPSHOT must be a constant expression: it may not"
                        + " refer to a column or call a non-deterministic function.");
    }

    @Test
    void nonDeterministicInterval(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time),"
                                + " load_completed_idle_timeout => INTERVAL '1' SECOND"
                                + " * CAST(RAND() * 10 AS INT)) AS r"),
                "Argument 'load_completed_idle_timeout' of SNAPSHOT must be a constant"
                        + " expression: it may not refer to a column or call a non-deterministic"
                        + " function.");
    }

    @Test
    void negativeInterval(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time),"
                                + " state_ttl => INTERVAL '-1' SECOND) AS r"),
                "Argument 'state_ttl' of SNAPSHOT must not be negative, but was -1000 ms.");
    }

    @Test
    void negativeComputedInterval(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time),"
                                + " load_completed_idle_timeout => INTERVAL '1' SECOND"
                                + " - INTERVAL '1' MINUTE) AS r"),
                "Argument 'load_completed_idle_timeout' of SNAPSHOT must not be negative, but was"
                        + " -59000 ms.");
    }

    @Test
    void namedAndPositionalArgumentsMixed(TableEnvironment env) {
        assertRejected(
                env,
                fragment(
                        "JOIN LATERAL SNAPSHOT(TABLE rates, on_time => DESCRIPTOR(update_time))"
                                + " AS r"),
                "The arguments of SNAPSHOT must either all be named or all be positional, but"
                        + " argument 1 is positional.");
    }

    @Test
    void errorsOfTheBatchModeToo(@TempDir Path directory) {
        TableEnvironment batch = SnapshotTestEnvironments.batch(directory, directory);
        Throwable error =
                catchThrowable(
                        () ->
                                batch.explainSql(
                                        "SELECT * FROM orders_b AS o RIGHT JOIN LATERAL"
                                                + " SNAPSHOT(input => TABLE rates_b) AS r"
                                                + " ON o.currency = r.currency"));
        assertMessageInChain(
                error,
                ValidationException.class,
                "LATERAL SNAPSHOT join only supports INNER JOIN and LEFT OUTER JOIN, but was"
                        + " RIGHT JOIN.",
                false);
    }

    // ---- helpers ----

    /** The full statement of the release-testing plan's errors, for a fragment of its table. */
    private static String fragment(String fragment) {
        return "EXPLAIN SELECT o.order_id FROM orders AS o "
                + fragment
                + " ON o.currency = r.currency";
    }

    private static void assertRejected(TableEnvironment env, String statement, String message) {
        assertMessageInChain(
                catchThrowable(() -> env.executeSql(statement)),
                ValidationException.class,
                message,
                false);
    }

    private static void assertRejectedWithPrefix(
            TableEnvironment env,
            String statement,
            Class<? extends Throwable> type,
            String messagePrefix) {
        assertMessageInChain(
                catchThrowable(() -> env.executeSql(statement)), type, messagePrefix, true);
    }

    /**
     * The message must be the root cause's: the SQL Client shows a failed statement's root cause
     * only, so a message of ours wrapped around another exception would never reach the user.
     */
    private static void assertMessageInChain(
            Throwable error, Class<? extends Throwable> type, String message, boolean prefix) {
        assertThat(error)
                .as("the statement must fail")
                .isNotNull()
                .isInstanceOfAny(ValidationException.class, TableException.class);
        Throwable rootCause = ExceptionUtils.getRootCause(error);
        if (prefix) {
            assertThat(rootCause)
                    .as("root cause")
                    .isInstanceOf(type)
                    .hasMessageStartingWith(message);
        } else {
            assertThat(rootCause).as("root cause").isInstanceOf(type).hasMessage(message);
        }
    }
}
