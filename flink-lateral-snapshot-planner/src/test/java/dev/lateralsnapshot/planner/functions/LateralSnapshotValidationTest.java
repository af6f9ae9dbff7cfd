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
import org.apache.flink.table.api.ValidationException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static dev.lateralsnapshot.planner.PlanningErrors.assertRejected;
import static dev.lateralsnapshot.planner.PlanningErrors.ordersJoining;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.apache.flink.table.api.Expressions.descriptor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The errors for mistakes in the arguments of {@code SNAPSHOT}, word for word: their syntax and
 * types, which {@link SnapshotTableFunction} checks (for the Table API {@link
 * SnapshotProcessTableFunction} checks {@code on_time} with the same messages), and their values,
 * which {@link SnapshotArguments} folds (the builder of {@link LateralSnapshot} checks durations
 * with the same message). Each error must reach the user as a {@link ValidationException} whose
 * root cause has the exact message, never as a Calcite stack trace, an assertion error or a null
 * pointer.
 *
 * <p>This is the one test of these messages' words; other tests may check that such a query fails
 * and what the message names, not its text.
 */
class LateralSnapshotValidationTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    // ---- SQL ----

    @Test
    void onTimeOfWrongType(TableEnvironment env) {
        assertRejected(
                env,
                ordersJoining(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(rate))"
                                + " AS r"),
                "Argument 'on_time' of SNAPSHOT must reference a TIMESTAMP or TIMESTAMP_LTZ column"
                        + " (up to precision 3), but column 'rate' has type 'DOUBLE'.");
    }

    @ParameterizedTest
    @ValueSource(strings = {"PARTITION BY currency", "ORDER BY update_time"})
    void inputWithPartitionOrOrder(String clause, TableEnvironment env) {
        assertRejected(
                env,
                ordersJoining(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates "
                                + clause
                                + ", on_time => DESCRIPTOR(update_time)) AS r"),
                "Argument 'input' of SNAPSHOT takes no PARTITION BY or ORDER BY: the join"
                        + " partitions the build side by the equality keys of its ON clause and"
                        + " orders its changes by 'on_time'.");
    }

    @Test
    void unknownArgumentName(TableEnvironment env) {
        assertRejected(
                env,
                ordersJoining(
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
                ordersJoining(
                        "JOIN LATERAL SNAPSHOT(INPUT => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time)) AS r"),
                "Unknown argument 'INPUT' of SNAPSHOT. Supported arguments are: input, on_time,"
                        + " load_completed_time, load_completed_idle_timeout, state_ttl.");
    }

    @Test
    void argumentGivenTwice(TableEnvironment env) {
        assertRejected(
                env,
                ordersJoining(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time),"
                                + " on_time => DESCRIPTOR(update_time)) AS r"),
                "Argument 'on_time' of SNAPSHOT is given more than once.");
    }

    @Test
    void missingInput(TableEnvironment env) {
        assertRejected(
                env,
                ordersJoining("JOIN LATERAL SNAPSHOT(on_time => DESCRIPTOR(update_time)) AS r"),
                "SNAPSHOT requires the 'input' argument, the build-side table, for example"
                        + " 'input => TABLE rates'.");
    }

    @ParameterizedTest
    @ValueSource(strings = {"rates", "1"})
    void inputThatIsNotATable(String input, TableEnvironment env) {
        assertRejected(
                env,
                ordersJoining(
                        "JOIN LATERAL SNAPSHOT(input => "
                                + input
                                + ", on_time => DESCRIPTOR(update_time)) AS r"),
                "Argument 'input' of SNAPSHOT must be a table. It was '"
                        + input
                        + "'; write for example 'input => TABLE rates'.");
    }

    @Test
    void onTimeNamingAMissingColumn(TableEnvironment env) {
        assertRejected(
                env,
                ordersJoining(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(updated)) AS r"),
                "Argument 'on_time' of SNAPSHOT references column 'updated' which is not present"
                        + " in the input table. Available columns: currency, rate, update_time.");
    }

    @Test
    void onTimeThatIsNotADescriptor(TableEnvironment env) {
        assertRejected(
                env,
                ordersJoining(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates, on_time => 'update_time')"
                                + " AS r"),
                "Argument 'on_time' of SNAPSHOT must reference exactly one column. It was"
                        + " ''update_time''; write a DESCRIPTOR of one column, for example"
                        + " 'on_time => DESCRIPTOR(update_time)'.");
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
                ordersJoining(
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
                ordersJoining(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time), state_ttl => 3600) AS r"),
                "Argument 'state_ttl' of SNAPSHOT must be a constant day-time INTERVAL, for"
                        + " example INTERVAL '10' SECOND, but has type 'INT NOT NULL'.");
    }

    @Test
    void yearMonthInterval(TableEnvironment env) {
        assertRejected(
                env,
                ordersJoining(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time),"
                                + " load_completed_idle_timeout => INTERVAL '1' MONTH) AS r"),
                "Argument 'load_completed_idle_timeout' of SNAPSHOT must be a constant day-time"
                        + " INTERVAL, for example INTERVAL '10' SECOND, but has type"
                        + " 'INTERVAL MONTH NOT NULL'.");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "TIMESTAMP '2026-01-02 00:00:00'|TIMESTAMP(0) NOT NULL",
                "'2026-01-02 00:00:00'|CHAR(19) NOT NULL"
            })
    void loadCompletedTimeOfWrongType(String time, String type, TableEnvironment env) {
        assertRejected(
                env,
                ratesWith("load_completed_time", time),
                "Argument 'load_completed_time' of SNAPSHOT must be a constant TIMESTAMP_LTZ(3)"
                        + " expression, for example CAST(TIMESTAMP '2026-01-02 00:00:00' AS"
                        + " TIMESTAMP_LTZ(3)), but has type '"
                        + type
                        + "'.");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "state_ttl|INTERVAL '1' SECOND * o.order_id",
                "load_completed_idle_timeout|INTERVAL '1' SECOND * o.order_id",
                "load_completed_time|CAST(o.ts AS TIMESTAMP_LTZ(3))"
            })
    void argumentFromAProbeColumn(String argument, String value, TableEnvironment env) {
        assertRejected(
                env,
                ratesWith(argument, value),
                "Argument '"
                        + argument
                        + "' of SNAPSHOT must be a constant expression that can be evaluated at plan"
                        + " time. It may not refer to a column or call a non-deterministic"
                        + " function.");
    }

    @Test
    void nonDeterministicInterval(TableEnvironment env) {
        assertRejected(
                env,
                ordersJoining(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time),"
                                + " load_completed_idle_timeout => INTERVAL '1' SECOND"
                                + " * CAST(RAND() * 10 AS INT)) AS r"),
                "Argument 'load_completed_idle_timeout' of SNAPSHOT must be a constant"
                        + " expression that can be evaluated at plan time. It may not refer to a"
                        + " column or call a non-deterministic function.");
    }

    @Test
    void negativeInterval(TableEnvironment env) {
        assertRejected(
                env,
                ordersJoining(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time),"
                                + " state_ttl => INTERVAL '-1' SECOND) AS r"),
                "Argument 'state_ttl' of SNAPSHOT must not be negative. It was -1000 ms.");
    }

    @Test
    void negativeComputedInterval(TableEnvironment env) {
        assertRejected(
                env,
                ordersJoining(
                        "JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                                + " on_time => DESCRIPTOR(update_time),"
                                + " load_completed_idle_timeout => INTERVAL '1' SECOND"
                                + " - INTERVAL '1' MINUTE) AS r"),
                "Argument 'load_completed_idle_timeout' of SNAPSHOT must not be negative. It was"
                        + " -59000 ms.");
    }

    @Test
    void nullArguments(TableEnvironment env) {
        assertRejected(
                env,
                ratesWith("load_completed_idle_timeout", "CAST(NULL AS INTERVAL SECOND)"),
                "Argument 'load_completed_idle_timeout' of SNAPSHOT must not be NULL.");
        assertRejected(
                env,
                ratesWith("load_completed_time", "CAST(NULL AS TIMESTAMP_LTZ(3))"),
                "Argument 'load_completed_time' of SNAPSHOT must not be NULL.");
    }

    @Test
    void namedAndPositionalArgumentsMixed(TableEnvironment env) {
        assertRejected(
                env,
                ordersJoining(
                        "JOIN LATERAL SNAPSHOT(TABLE rates, on_time => DESCRIPTOR(update_time))"
                                + " AS r"),
                "The arguments of SNAPSHOT must either all be named or all be positional, but"
                        + " argument 1 is positional.");
    }

    // ---- the Table API ----

    @Test
    void onTimeOfWrongTypeOrMissing(TableEnvironment env) {
        Table rates = env.from("rates_r");
        assertThat(catchThrowable(() -> LateralSnapshot.snapshot(rates).onTime("r_rate").toTable()))
                .isInstanceOf(ValidationException.class)
                .hasRootCauseMessage(
                        "Argument 'on_time' of SNAPSHOT must reference a TIMESTAMP or"
                                + " TIMESTAMP_LTZ column (up to precision 3), but column 'r_rate'"
                                + " has type 'DOUBLE'.");
        assertThat(catchThrowable(() -> LateralSnapshot.snapshot(rates).onTime("rate").toTable()))
                .isInstanceOf(ValidationException.class)
                .hasRootCauseMessage(
                        "Argument 'on_time' of SNAPSHOT references column 'rate' which is not"
                                + " present in the input table. Available columns: r_currency,"
                                + " r_rate, update_time.");
    }

    @Test
    void onTimeOfMoreThanOneColumn(TableEnvironment env) {
        Table rates = env.from("rates_r");
        assertThat(
                        catchThrowable(
                                () ->
                                        env.fromCall(
                                                "SNAPSHOT",
                                                rates.asArgument("input"),
                                                descriptor("r_currency", "update_time")
                                                        .asArgument("on_time"))))
                .isInstanceOf(ValidationException.class)
                .hasRootCauseMessage(
                        "Argument 'on_time' of SNAPSHOT must reference exactly one column. Use a"
                                + " descriptor of one column, for example"
                                + " descriptor(\"update_time\").asArgument(\"on_time\").");
    }

    @Test
    void builderRejectsNegativeDurations(TableEnvironment env) {
        LateralSnapshot.Builder builder = LateralSnapshot.snapshot(env.from("rates_r"));
        assertThatThrownBy(() -> builder.loadCompletedIdleTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(ValidationException.class)
                .hasNoCause()
                .hasMessage(
                        "Argument 'load_completed_idle_timeout' of SNAPSHOT must not be negative."
                                + " It was -1000 ms.");
        assertThatThrownBy(() -> builder.stateTtl(Duration.ofHours(-1)))
                .isInstanceOf(ValidationException.class)
                .hasNoCause()
                .hasMessage(
                        "Argument 'state_ttl' of SNAPSHOT must not be negative. It was -3600000 ms.");
    }

    /** The statement of {@code ordersJoining} with rates, its {@code on_time} and one argument. */
    private static String ratesWith(String argument, String value) {
        return ordersJoining(
                "JOIN LATERAL SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(update_time), "
                        + argument
                        + " => "
                        + value
                        + ") AS r");
    }
}
