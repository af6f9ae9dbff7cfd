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

package dev.lateralsnapshot.testutils.tables;

import dev.lateralsnapshot.testutils.connectors.Directories;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The data of the exactly-once tests, which fail a job again and again (in a MiniCluster, and by
 * killing TaskManagers of a local cluster): a debezium-json build side on which a half-applied
 * update pair shows in the output, and the checks of that output.
 *
 * <p>Orders have ids from 1 and the key {@code id % KEYS}. Every key has exactly one build row at
 * any time, {@code (key_id, version_a, version_b)} with both versions equal; version 0 inserts
 * every key, and version v replaces every key's row of version v - 1 by an update pair (-U of v -
 * 1, +U of v). With a LEFT join every order must therefore match exactly one row with equal
 * versions: a -U applied without its +U shows as a NULL-padded row, a +U without its -U as two rows
 * for one order. Each version file ends with a row of {@link #DUMMY_KEY} that moves the build
 * watermark past it.
 *
 * <p>The job reads the files as {@code versions} ({@link #VERSIONS_COLUMNS}) and writes {@link
 * #OUTPUT_COLUMNS} as csv (see {@link #query}).
 */
public final class VersionedBuildSide {

    public static final int KEYS = 8;

    /** The columns of {@code versions}, the build side, whose watermark is its latest row time. */
    public static final String VERSIONS_COLUMNS =
            "key_id INT, version_a BIGINT, version_b BIGINT,"
                    + " update_time TIMESTAMP(3), WATERMARK FOR update_time AS update_time";

    /** The columns of the sink of {@link #query}: the order and the build row it matched. */
    public static final String OUTPUT_COLUMNS =
            "order_id BIGINT, key_id INT, version_a BIGINT, version_b BIGINT";

    /** Key of the build row that every file ends with, to push the build watermark. */
    public static final int DUMMY_KEY = 999;

    private static final LocalDateTime VERSION_0_TIME = LocalDateTime.of(2026, 1, 1, 0, 0);
    private static final LocalDateTime LOAD_COMPLETED_TIME = VERSION_0_TIME.plusMinutes(30);

    private VersionedBuildSide() {}

    /**
     * The job: {@code orders} LEFT JOIN LATERAL SNAPSHOT of {@code versions}, whose load phase ends
     * with {@link #flipFile()}, into {@code sink}.
     */
    public static String query(String orders, String sink) {
        return "INSERT INTO "
                + sink
                + " SELECT o.order_id, o.key_id, r.version_a, r.version_b"
                + " FROM "
                + orders
                + " LEFT JOIN LATERAL SNAPSHOT(input => TABLE versions,"
                + " on_time => DESCRIPTOR(update_time),"
                + " load_completed_time => CAST(TIMESTAMP '"
                + sql(LOAD_COMPLETED_TIME)
                + "' AS TIMESTAMP_LTZ(3))) AS r"
                + " ON o.key_id = r.key_id";
    }

    /**
     * The options of the sink of {@link #query}: csv files in a directory. Row formats roll only by
     * time or size; these roll every half second, and the next checkpoint commits them.
     */
    public static String outputOptions(Path directory) {
        return Directories.filesystem(directory, "csv")
                + ", 'sink.rolling-policy.rollover-interval' = '500 ms',"
                + " 'sink.rolling-policy.check-interval' = '100 ms'";
    }

    /** Version 0 inserts every key; version v replaces every key's version v - 1 by a pair. */
    public static List<String> versionFile(int version) {
        List<String> lines = new ArrayList<>();
        for (int key = 0; key < KEYS; key++) {
            if (version == 0) {
                lines.add(insert(key, 0, versionTime(0)));
            } else {
                lines.add(
                        Debezium.update(
                                row(key, version - 1, versionTime(version - 1)),
                                row(key, version, versionTime(version))));
            }
        }
        lines.add(insert(DUMMY_KEY, version, dummyTime(version)));
        return lines;
    }

    /** A file whose row moves the build watermark to the load completed time: the join flips. */
    public static List<String> flipFile() {
        return List.of(insert(DUMMY_KEY, 0, LOAD_COMPLETED_TIME));
    }

    /** The build watermark, in epoch millis, once a version's file has been read whole. */
    public static long watermarkAfter(int version) {
        return dummyTime(version).toInstant(ZoneOffset.UTC).toEpochMilli();
    }

    /**
     * Checks the committed output lines: every order from 1 to {@code orders} exactly once, each
     * matching one build row with both versions equal; orders up to {@code lastBufferedOrder} (the
     * load phase) see version 0, orders after {@code lastOrderBeforeLastVersion} see {@code
     * lastVersion}. Returns the number of rows.
     */
    public static int assertExactlyOnceAndNoHalfAppliedUpdate(
            List<String> lines,
            long orders,
            long lastBufferedOrder,
            long lastOrderBeforeLastVersion,
            int lastVersion) {
        Set<Long> seen = new HashSet<>();
        List<Long> duplicates = new ArrayList<>();
        for (String line : lines) {
            String[] fields = line.split(",", -1);
            long orderId = Long.parseLong(fields[0]);
            Long versionA = nullable(fields[2]);
            if (!seen.add(orderId)) {
                duplicates.add(orderId);
            }
            assertThat(Long.parseLong(fields[1]))
                    .as("key of order %s", orderId)
                    .isEqualTo(orderId % KEYS);
            assertThat(versionA)
                    .as("order %s matches one row, with both versions equal", orderId)
                    .isNotNull()
                    .isEqualTo(nullable(fields[3]));
            if (orderId <= lastBufferedOrder) {
                assertThat(versionA).as("buffered order %s", orderId).isEqualTo(0L);
            }
            if (orderId > lastOrderBeforeLastVersion) {
                assertThat(versionA).as("late order %s", orderId).isEqualTo(lastVersion);
            }
        }
        assertThat(duplicates).as("orders emitted more than once").isEmpty();
        List<Long> missing = new ArrayList<>();
        for (long order = 1; order <= orders; order++) {
            if (!seen.contains(order)) {
                missing.add(order);
            }
        }
        assertThat(missing).as("orders never emitted").isEmpty();
        assertThat(lines).hasSize((int) orders);
        return lines.size();
    }

    private static LocalDateTime versionTime(int version) {
        return VERSION_0_TIME.plusHours(version);
    }

    private static LocalDateTime dummyTime(int version) {
        return versionTime(version).plusMinutes(10);
    }

    private static String insert(int key, long version, LocalDateTime time) {
        return Debezium.insert(row(key, version, time));
    }

    private static String row(int key, long version, LocalDateTime time) {
        return String.format(
                "{\"key_id\":%d,\"version_a\":%d,\"version_b\":%d,\"update_time\":\"%s\"}",
                key, version, version, sql(time));
    }

    private static String sql(LocalDateTime time) {
        return time.toString().replace('T', ' ') + ":00";
    }

    private static Long nullable(String field) {
        return field.isEmpty() ? null : Long.valueOf(field);
    }
}
