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

package dev.lateralsnapshot;

import dev.lateralsnapshot.planner.activation.LateralSnapshotActivation;
import dev.lateralsnapshot.planner.functions.SnapshotArguments;
import dev.lateralsnapshot.planner.functions.SnapshotProcessTableFunction;
import dev.lateralsnapshot.planner.functions.SnapshotTableFunction;
import dev.lateralsnapshot.planner.internal.TableEnvironments;
import dev.lateralsnapshot.planner.module.LateralSnapshotModule;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.delegation.PlannerFactory;

import javax.annotation.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import static org.apache.flink.table.api.Expressions.$;
import static org.apache.flink.table.api.Expressions.descriptor;
import static org.apache.flink.table.api.Expressions.lit;
import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * Entry point of the LATERAL SNAPSHOT join for Flink 2.3: {@link #install(TableEnvironment)}
 * teaches a table environment the syntax
 *
 * <pre>{@code
 * SELECT ... FROM orders AS o
 * [LEFT] JOIN LATERAL SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(update_time)) AS r
 * ON o.currency = r.currency
 * }</pre>
 *
 * <p>Flink 2.3 has no plug-in point for a new join. The library therefore installs a planner
 * configuration (Flink's {@code CalciteConfig}, through {@link TableConfig#setPlannerConfig}) with
 * its own SQL parser (Flink's grammar plus {@code LATERAL f(...)}), the {@code SNAPSHOT} function
 * and optimizer programs that extend Flink's. The planner reads that configuration for every
 * statement, so installing it once, at any time, is enough; settings changed later with {@code SET}
 * still apply. Queries without {@code SNAPSHOT} are planned exactly as before.
 *
 * <h2>Table API</h2>
 *
 * <p>After {@link #install(TableEnvironment)} (or with the drop-in jar), the lateral join of the
 * Table API, with optional arguments named as in SQL:
 *
 * <pre>{@code
 * Table inner = orders.joinLateral(
 *         call("SNAPSHOT",
 *                 rates.asArgument("input"),
 *                 descriptor("update_time").asArgument("on_time"),
 *                 lit(Duration.ofSeconds(10)).asArgument("load_completed_idle_timeout")),
 *         $("currency").isEqual($("r_currency")));
 * }</pre>
 *
 * <p>It plans to the same {@code LateralSnapshotJoin} as the SQL statement and gives the same
 * results. The columns of the two sides must have different names. {@code
 * leftOuterJoinLateral(call("SNAPSHOT", ...))} without a predicate is the LEFT join {@code ON
 * TRUE}; with a predicate it cannot work on Flink 2.3, which accepts no predicate there but {@code
 * TRUE} before any planner runs. A LEFT join with a predicate joins the snapshot as a table:
 *
 * <pre>{@code
 * Table snapshot = env.fromCall("SNAPSHOT",
 *         rates.asArgument("input"),
 *         descriptor("update_time").asArgument("on_time"));
 * Table left = orders.leftOuterJoin(snapshot, $("currency").isEqual($("r_currency")));
 * }</pre>
 *
 * <p>That table has one more column than {@code rates}: Flink adds {@code rowtime}, a copy of the
 * {@code on_time} column, to the rows of every process table function called with {@code on_time}.
 * {@link #snapshot(Table)} builds the same table without it, and needs only the configuration
 * ({@link #install(TableConfig)}):
 *
 * <pre>{@code
 * Table snapshot = LateralSnapshot.snapshot(rates)
 *         .onTime("update_time")
 *         .loadCompletedIdleTimeout(Duration.ofSeconds(10))
 *         .toTable();
 * Table left = orders.leftOuterJoin(snapshot, $("currency").isEqual($("r_currency")));
 * }</pre>
 *
 * <p>A join of a table without an equality predicate needs {@code
 * orders.join(snapshot).where(predicate)}, as the Table API requires one for {@code join(table,
 * predicate)}.
 */
public final class LateralSnapshot {

    private LateralSnapshot() {}

    /**
     * Installs the LATERAL SNAPSHOT join in the environment, for SQL and for the Table API; a
     * second call changes nothing.
     *
     * <p>Besides the planner configuration ({@link #install(TableConfig)}) it loads the module
     * {@value LateralSnapshotModule#NAME}, through which the Table API finds {@code SNAPSHOT} by
     * name in every catalog and database, unless the current catalog and database define their own
     * function of that name. And it puts a planner in the environment that delegates everything to
     * Flink's and plans {@code joinLateral(call("SNAPSHOT", ...), predicate)}, which Flink 2.3
     * cannot convert, like the SQL join. In streaming mode the planner it delegates to is the one
     * of the drop-in jar, made of the environment's parts: Flink's stream planner with one more
     * step, which fuses the projection after a join into the join, so that a statement runs as the
     * same job with the drop-in jar or without it.
     */
    public static void install(TableEnvironment env) {
        LateralSnapshotActivation.install(env);
    }

    /**
     * Installs the LATERAL SNAPSHOT join from a planner factory, for every environment that the
     * factory creates a planner for: like {@link #install(TableEnvironment)}, with the parts of the
     * environment the factory is given.
     */
    public static void install(PlannerFactory.Context context) {
        LateralSnapshotActivation.install(context);
    }

    /**
     * Installs the LATERAL SNAPSHOT join in the configuration of a planner, for example from a
     * planner factory before it creates the planner; a second call changes nothing.
     *
     * <p>This is all SQL and {@link #snapshot(Table)} need. The Table API's lookup of {@code
     * SNAPSHOT} by name, as in {@code env.fromCall("SNAPSHOT", ...)}, also needs the module that
     * {@link #install(TableEnvironment)} loads: Flink resolves function names through the
     * environment's function catalog, which a configuration cannot reach.
     *
     * <p>Other settings of an installed planner configuration (operator tables, the SQL-to-rel
     * configuration) are kept; its parser configuration and optimizer programs are replaced.
     *
     * <p>It also lists the join's exec nodes among Flink's, once for all environments of the
     * planner's class loader, so that compiled plans with the join can be loaded
     * (docs/operations.md, "Compiled plans").
     */
    public static void install(TableConfig config) {
        LateralSnapshotActivation.install(config);
    }

    /** Whether the LATERAL SNAPSHOT join is installed in the configuration. */
    public static boolean isInstalled(TableConfig config) {
        return LateralSnapshotActivation.isInstalled(config);
    }

    /**
     * Starts the build side of a LATERAL SNAPSHOT join in the Table API: the table to join with
     * {@code join} or {@code leftOuterJoin}, with the rows of {@code input}. See {@link Builder}
     * for the arguments and the class comment for an example.
     *
     * <p>It needs the join installed in the environment of {@code input}, by {@link
     * #install(TableEnvironment)} or in its configuration only; it does not look {@code SNAPSHOT}
     * up by name.
     *
     * @param input the build side: any table, also an updating one, with or without primary key
     */
    public static Builder snapshot(Table input) {
        return new Builder(checkNotNull(input, "The input table must not be null."));
    }

    /**
     * The arguments of a {@code SNAPSHOT} call, as in SQL. {@link #onTime(String)} is required in
     * streaming mode; in batch mode the join is a regular join and the other arguments are ignored.
     */
    public static final class Builder {

        private final Table input;
        private @Nullable String onTime;
        private @Nullable Instant loadCompletedTime;
        private @Nullable Duration loadCompletedIdleTimeout;
        private @Nullable Duration stateTtl;

        private Builder(Table input) {
            this.input = input;
        }

        /**
         * The rowtime attribute of the input that orders its changes ({@code on_time =>
         * DESCRIPTOR(column)}); a TIMESTAMP or TIMESTAMP_LTZ column with a watermark.
         */
        public Builder onTime(String column) {
            this.onTime = checkNotNull(column, "The on_time column must not be null.");
            return this;
        }

        /**
         * The load phase ends when the build watermark reaches this time ({@code
         * load_completed_time}), milliseconds precise. Default: the wall-clock time when the query
         * is compiled.
         */
        public Builder loadCompletedTime(Instant time) {
            this.loadCompletedTime =
                    checkNotNull(time, "The load completion time must not be null.")
                            .truncatedTo(ChronoUnit.MILLIS);
            return this;
        }

        /**
         * The load phase also ends when the build watermark has not advanced for this long, in
         * processing time ({@code load_completed_idle_timeout}). Default: none.
         */
        public Builder loadCompletedIdleTimeout(Duration timeout) {
            this.loadCompletedIdleTimeout =
                    checkNonNegative(timeout, SnapshotTableFunction.LOAD_COMPLETED_IDLE_TIMEOUT);
            return this;
        }

        /**
         * Build keys that no probe row has accessed for this long are evicted ({@code state_ttl}).
         * Default: {@code table.exec.state.ttl}.
         */
        public Builder stateTtl(Duration ttl) {
            this.stateTtl = checkNonNegative(ttl, SnapshotTableFunction.STATE_TTL);
            return this;
        }

        /** The table to join with, with the columns of the input. */
        public Table toTable() {
            List<Object> arguments = new ArrayList<>();
            arguments.add(input.asArgument(SnapshotTableFunction.INPUT));
            if (onTime != null) {
                arguments.add(descriptor(onTime).asArgument(SnapshotTableFunction.ON_TIME));
            }
            if (loadCompletedTime != null) {
                arguments.add(
                        lit(loadCompletedTime, DataTypes.TIMESTAMP_LTZ(3).notNull())
                                .asArgument(SnapshotTableFunction.LOAD_COMPLETED_TIME));
            }
            if (loadCompletedIdleTimeout != null) {
                arguments.add(
                        lit(loadCompletedIdleTimeout)
                                .asArgument(SnapshotTableFunction.LOAD_COMPLETED_IDLE_TIMEOUT));
            }
            if (stateTtl != null) {
                arguments.add(lit(stateTtl).asArgument(SnapshotTableFunction.STATE_TTL));
            }
            // The class, not the name: no lookup, so the configuration is all it needs.
            Table snapshot =
                    TableEnvironments.of(input)
                            .fromCall(SnapshotProcessTableFunction.class, arguments.toArray());
            if (onTime == null) {
                return snapshot;
            }
            // The rowtime column Flink appends comes last, whatever its name.
            List<String> columns = snapshot.getResolvedSchema().getColumnNames();
            return snapshot.dropColumns($(columns.get(columns.size() - 1)));
        }

        /** Rejects a negative duration as the SQL argument is rejected, with the same words. */
        private static Duration checkNonNegative(Duration duration, String argument) {
            checkNotNull(duration, "The %s must not be null.", argument);
            if (duration.isNegative()) {
                throw SnapshotArguments.negativeDuration(argument, duration.toMillis());
            }
            return duration;
        }
    }
}
