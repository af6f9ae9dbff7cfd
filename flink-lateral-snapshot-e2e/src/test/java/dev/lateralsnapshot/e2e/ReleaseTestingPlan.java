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

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The SQL and the build-side files of the release-testing plan (seed 004), word for word where the
 * plan gives them; only the paths point into the run directory instead of {@code /tmp/flip579}.
 */
final class ReleaseTestingPlan {

    /** {@code 2026-01-01 11:00:00} UTC, the build watermark after {@link #BUILD_001}. */
    static final long WATERMARK_AFTER_001 = 1767265200000L;

    /** {@code 2026-01-02 00:00:00} UTC, the build watermark after {@link #BUILD_002}. */
    static final long WATERMARK_AFTER_002 = 1767312000000L;

    /** Section 1: the initial build state. */
    static final String BUILD_001 = buildFile("001.json");

    /** Section 2: moves the build watermark to the explicit load completion time. */
    static final String BUILD_002 = buildFile("002.json");

    /** Section 3: an update of A, a delete of B, an insert of C. */
    static final String BUILD_003 = buildFile("003.json");

    /** Section 7, load phase: {@code 001.json} "with the Z row at 2026-01-03 00:00:00". */
    static final String BUILD_001_PAST_LOAD_COMPLETION =
            BUILD_001.replace("2026-01-01 11:00:00", "2026-01-03 00:00:00");

    static final String IDLE_TIMEOUT = "load_completed_idle_timeout => INTERVAL '10' SECOND";
    static final String LOAD_COMPLETED_TIME =
            "load_completed_time => CAST(TIMESTAMP '2026-01-02 00:00:00' AS TIMESTAMP_LTZ(3))";
    static final String STATE_TTL = "state_ttl => INTERVAL '20' SECOND";
    static final String EQUI = "o.currency = r.currency";

    /** Section 8's input files: orders, then rates. */
    static final String ORDERS_B_CSV = "1,A\n2,B\n3,C\n4,A\n";

    static final String RATES_B_CSV = "A,1.0\nB,2.0\nA,1.5\n";

    private ReleaseTestingPlan() {}

    /** A build-side file of the plan, from {@code src/test/resources/release-testing-plan}. */
    private static String buildFile(String name) {
        try (InputStream file =
                ReleaseTestingPlan.class.getResourceAsStream("/release-testing-plan/" + name)) {
            return new String(file.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code ddl.sql} of section 0, reading the build side from the given directory. */
    static String ddl(Path buildDirectory) {
        return "SET 'table.local-time-zone' = 'UTC';\n"
                + "SET 'sql-client.execution.result-mode' = 'tableau';\n"
                + "\n"
                + tables(buildDirectory);
    }

    /** The {@code CREATE TABLE} statements of {@code ddl.sql}. */
    static String tables(Path buildDirectory) {
        return "CREATE TABLE rates (\n"
                + "  currency STRING, rate DOUBLE, update_time TIMESTAMP(3),\n"
                + "  WATERMARK FOR update_time AS update_time\n"
                + ") WITH (\n"
                + "  'connector' = 'filesystem', 'path' = '"
                + buildDirectory
                + "',\n"
                + "  'format' = 'debezium-json', 'source.monitor-interval' = '2s');\n"
                + "\n"
                + "CREATE TABLE orders (\n"
                + "  order_id BIGINT,\n"
                + "  currency AS CASE order_id % 3 WHEN 0 THEN 'A' WHEN 1 THEN 'B' ELSE 'C' END,\n"
                + "  ts AS LOCALTIMESTAMP,\n"
                + "  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND\n"
                + ") WITH ('connector' = 'datagen', 'rows-per-second' = '1',\n"
                + "        'fields.order_id.kind' = 'sequence', 'fields.order_id.start' = '1',"
                + " 'fields.order_id.end' = '100000');\n"
                + "\n"
                + "CREATE TABLE out_print (order_id BIGINT, currency STRING, rate DOUBLE) WITH"
                + " ('connector' = 'print');\n";
    }

    /**
     * The plan's {@code INSERT INTO out_print} query: {@code join} is {@code JOIN} or {@code LEFT
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

    /** The currency of an order, as the {@code orders} table computes it. */
    static String currencyOf(long orderId) {
        switch ((int) (orderId % 3)) {
            case 0:
                return "A";
            case 1:
                return "B";
            default:
                return "C";
        }
    }
}
