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

package dev.lateralsnapshot.config;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.description.Description;
import org.apache.flink.table.api.ValidationException;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import static org.apache.flink.configuration.ConfigOptions.key;

/**
 * The options of the LATERAL SNAPSHOT join, set like Flink's own table options ({@code SET
 * 'table.exec.lateral-snapshot.build-distribution' = 'broadcast'} in SQL, {@code TableConfig#set}
 * in Java). They are read when a statement is planned, so a {@code SET} applies to the statements
 * after it; a compiled plan keeps the values it was compiled with.
 */
public final class LateralSnapshotOptions {

    private LateralSnapshotOptions() {}

    /** How the build side reaches the subtasks of the join. */
    public enum BuildDistribution {
        /** Both inputs hash-partitioned on the equality keys; parallelism 1 without them. */
        HASH,
        /** The build side replicated to every subtask; the probe side not re-partitioned. */
        BROADCAST;

        /** The value as it is written in the option. */
        public String value() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static final ConfigOption<String> BUILD_DISTRIBUTION =
            key("table.exec.lateral-snapshot.build-distribution")
                    .stringType()
                    .defaultValue(BuildDistribution.HASH.value())
                    .withDescription(
                            Description.builder()
                                    .text(
                                            "How the build side (the input of SNAPSHOT) of a"
                                                    + " LATERAL SNAPSHOT join reaches the subtasks"
                                                    + " of the join in streaming mode. 'hash'"
                                                    + " partitions both inputs by the equality keys"
                                                    + " of the join condition, and runs the join at"
                                                    + " parallelism 1 without equality keys.")
                                    .linebreak()
                                    .text(
                                            "'broadcast' sends every build row to every subtask"
                                                    + " and leaves the probe side where it is:"
                                                    + " the join runs at the parallelism of the"
                                                    + " probe side, with or without equality keys,"
                                                    + " and a hot key no longer loads one subtask."
                                                    + " Each subtask holds the whole build side on"
                                                    + " the JVM heap, whatever the state backend,"
                                                    + " and writes it into every checkpoint.")
                                    .linebreak()
                                    .text(
                                            "Batch mode plans a regular join and ignores this"
                                                    + " option.")
                                    .build());

    public static final ConfigOption<Long> BROADCAST_BUILD_ROWS_WARNING_THRESHOLD =
            key("table.exec.lateral-snapshot.broadcast.build-rows-warning-threshold")
                    .longType()
                    .defaultValue(1_000_000L)
                    .withDescription(
                            "With the 'broadcast' build distribution, a subtask of the join logs"
                                    + " a warning when the build rows it holds pass this number,"
                                    + " since every subtask holds all of them on the heap. 0"
                                    + " disables the warning.");

    public static final ConfigOption<Boolean> LOAD_COMPLETED_ON_CAUGHT_UP =
            key("table.exec.lateral-snapshot.load-completed-on-caught-up")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            Description.builder()
                                    .text(
                                            "Whether the load phase of a LATERAL SNAPSHOT join"
                                                    + " also ends when its build input has read"
                                                    + " its backlog, whichever comes first of that,"
                                                    + " load_completed_time and"
                                                    + " load_completed_idle_timeout. The backlog is"
                                                    + " the one a source reports to Flink (a"
                                                    + " HybridSource until its last source starts);"
                                                    + " a source that reports none but publishes"
                                                    + " the pendingRecords metric (Kafka,"
                                                    + " upsert-kafka) is made to report one until"
                                                    + " each of its readers has caught up with the"
                                                    + " end of its splits. The source's state and"
                                                    + " savepoints stay the same.")
                                    .linebreak()
                                    .text(
                                            "This library's own option: Flink 2.4 ignores it"
                                                    + " and ends the load phase by the arguments"
                                                    + " only.")
                                    .build());

    /**
     * The build distribution of the configuration.
     *
     * @throws ValidationException for a value that is not one of {@link BuildDistribution}
     */
    public static BuildDistribution buildDistribution(ReadableConfig config) {
        String value = config.get(BUILD_DISTRIBUTION);
        for (BuildDistribution distribution : BuildDistribution.values()) {
            if (distribution.value().equalsIgnoreCase(value.trim())) {
                return distribution;
            }
        }
        throw new ValidationException(
                String.format(
                        "Invalid value '%s' for option '%s'. Allowed values: %s.",
                        value,
                        BUILD_DISTRIBUTION.key(),
                        Arrays.stream(BuildDistribution.values())
                                .map(distribution -> "'" + distribution.value() + "'")
                                .collect(Collectors.joining(", "))));
    }

    /**
     * The warning threshold of the configuration, in build rows per subtask; 0 for none.
     *
     * @throws ValidationException for a negative value
     */
    public static long broadcastBuildRowsWarningThreshold(ReadableConfig config) {
        long threshold = config.get(BROADCAST_BUILD_ROWS_WARNING_THRESHOLD);
        if (threshold < 0) {
            throw new ValidationException(
                    String.format(
                            "Invalid value %d for option '%s'. It must be 0 (no warning) or a"
                                    + " positive number of rows.",
                            threshold, BROADCAST_BUILD_ROWS_WARNING_THRESHOLD.key()));
        }
        return threshold;
    }
}
