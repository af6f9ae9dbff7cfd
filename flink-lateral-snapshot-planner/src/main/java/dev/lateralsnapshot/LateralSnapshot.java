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

import dev.lateralsnapshot.planner.functions.LateralSnapshotOperatorTable;
import dev.lateralsnapshot.planner.parse.LateralSnapshotParserFactory;
import dev.lateralsnapshot.planner.plan.optimize.LateralSnapshotPrograms;

import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.planner.calcite.CalciteConfig;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;
import org.apache.flink.table.planner.utils.TableConfigUtils;

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
 * configuration ({@link CalciteConfig}, through {@link TableConfig#setPlannerConfig}) with its own
 * SQL parser (Flink's grammar plus {@code LATERAL f(...)}), the {@code SNAPSHOT} function and
 * optimizer programs that extend Flink's. The planner reads that configuration for every statement,
 * so installing it once, at any time, is enough; settings changed later with {@code SET} still
 * apply. Queries without {@code SNAPSHOT} are planned exactly as before.
 */
public final class LateralSnapshot {

    private LateralSnapshot() {}

    /** Installs the LATERAL SNAPSHOT join in the environment; a second call changes nothing. */
    public static void install(TableEnvironment env) {
        install(env.getConfig());
    }

    /**
     * Installs the LATERAL SNAPSHOT join in the configuration of a planner, for example from a
     * planner factory before it creates the planner; a second call changes nothing.
     *
     * <p>Other settings of an installed {@link CalciteConfig} (operator tables, the SQL-to-rel
     * configuration) are kept; its parser configuration and optimizer programs are replaced.
     */
    public static void install(TableConfig config) {
        CalciteConfig current = TableConfigUtils.getCalciteConfig(config);
        if (isInstalled(current)) {
            return;
        }
        config.setPlannerConfig(
                CalciteConfig.createBuilder(current)
                        .replaceSqlParserConfig(LateralSnapshotParserFactory.parserConfig())
                        .addSqlOperatorTable(LateralSnapshotOperatorTable.INSTANCE)
                        .replaceStreamProgram(LateralSnapshotPrograms.streamProgram())
                        .replaceBatchProgram(LateralSnapshotPrograms.batchProgram())
                        .build());
    }

    /** Whether the LATERAL SNAPSHOT join is installed in the configuration. */
    public static boolean isInstalled(TableConfig config) {
        return isInstalled(TableConfigUtils.getCalciteConfig(config));
    }

    private static boolean isInstalled(CalciteConfig config) {
        return JavaScalaConversionUtil.toJava(config.getStreamProgram())
                .map(LateralSnapshotPrograms::isLateralSnapshotProgram)
                .orElse(false);
    }
}
