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

package dev.lateralsnapshot.e2e;

import dev.lateralsnapshot.testutils.connectors.Directories;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static dev.lateralsnapshot.testutils.tables.RateChanges.FILE_001;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ENRICHED_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ONE_ORDER_PER_SECOND;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.ORDERS_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.RATES_COLUMNS;
import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;

/**
 * The SQL that the end-to-end tests give the SQL Client: the tables of the reference
 * (docs/lateral-snapshot-join.md, "Syntax") with {@code rates} read from the run directory and the
 * enriched orders printed, the statement that submits the join, and the arguments of its variants.
 */
final class ReleaseTestingPlan {

    /** {@code 001.json} with its Z row at 2026-01-03 00:00:00: past the load completion time. */
    static final List<String> FILE_001_PAST_LOAD_COMPLETION =
            FILE_001.stream()
                    .map(line -> line.replace("2026-01-01 11:00:00", "2026-01-03 00:00:00"))
                    .collect(Collectors.toList());

    static final String IDLE_TIMEOUT = "load_completed_idle_timeout => INTERVAL '10' SECOND";
    static final String LOAD_COMPLETED_TIME =
            "load_completed_time => CAST(TIMESTAMP '2026-01-02 00:00:00' AS TIMESTAMP_LTZ(3))";
    static final String STATE_TTL = "state_ttl => INTERVAL '20' SECOND";
    static final String EQUI = "o.currency = r.currency";

    private ReleaseTestingPlan() {}

    /** {@code ddl.sql}, the SQL Client's init script, reading the build side from a directory. */
    static String ddl(Path buildDirectory) {
        return "SET 'table.local-time-zone' = 'UTC';\n"
                + "SET 'sql-client.execution.result-mode' = 'tableau';\n"
                + "\n"
                + tables(buildDirectory);
    }

    /** The {@code CREATE TABLE} statements of {@code ddl.sql}, each ending with a line break. */
    static String tables(Path buildDirectory) {
        return createTable("rates", RATES_COLUMNS, buildSide(buildDirectory))
                + ";\n"
                + createTable("orders", ORDERS_COLUMNS, ONE_ORDER_PER_SECOND)
                + ";\n"
                + createTable("out_print", ENRICHED_COLUMNS, "'connector' = 'print'")
                + ";\n";
    }

    /** The options of a build side that reads the Debezium JSON files dropped into a directory. */
    static String buildSide(Path buildDirectory) {
        return Directories.filesystem(buildDirectory, "debezium-json")
                + ", 'source.monitor-interval' = '2s'";
    }

    /**
     * The {@code INSERT INTO out_print} statement: {@code join} is {@code JOIN} or {@code LEFT
     * JOIN}, {@code arguments} are added after {@code input} and {@code on_time}.
     */
    static String insert(String join, String condition, String... arguments) {
        StringBuilder snapshot =
                new StringBuilder("  input => TABLE rates,\n  on_time => DESCRIPTOR(update_time)");
        for (String argument : arguments) {
            snapshot.append(",\n  ").append(argument);
        }
        return "INSERT INTO out_print\n"
                + "SELECT o.order_id, o.currency, r.rate\n"
                + "FROM orders AS o\n"
                + join
                + " LATERAL SNAPSHOT(\n"
                + snapshot
                + ") AS r\n"
                + "ON "
                + condition
                + ";\n";
    }
}
