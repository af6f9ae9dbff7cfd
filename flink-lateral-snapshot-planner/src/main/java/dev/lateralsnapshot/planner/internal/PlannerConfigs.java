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

package dev.lateralsnapshot.planner.internal;

import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.planner.calcite.CalciteConfig;
import org.apache.flink.table.planner.plan.optimize.program.BatchOptimizeContext;
import org.apache.flink.table.planner.plan.optimize.program.FlinkChainedProgram;
import org.apache.flink.table.planner.plan.optimize.program.StreamOptimizeContext;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;
import org.apache.flink.table.planner.utils.TableConfigUtils;

import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.parser.SqlParser;

import java.util.function.Predicate;

/**
 * The planner configuration of a table configuration: Flink's {@link CalciteConfig}, set through
 * the public {@link TableConfig#setPlannerConfig}. Flink's planner reads it for every statement
 * (its parser configuration, extra operator tables, and stream and batch programs replace Flink's
 * own), so it may be set at any time. Reading it back needs Flink's {@code TableConfigUtils} and
 * Scala's {@code Option}.
 */
public final class PlannerConfigs {

    private PlannerConfigs() {}

    /**
     * Replaces the parser configuration and the optimizer programs of the configuration's planner
     * configuration, and adds an operator table; its other settings are kept.
     */
    public static void extend(
            TableConfig config,
            SqlParser.Config parserConfig,
            SqlOperatorTable operatorTable,
            FlinkChainedProgram<StreamOptimizeContext> streamProgram,
            FlinkChainedProgram<BatchOptimizeContext> batchProgram) {
        config.setPlannerConfig(
                CalciteConfig.createBuilder(TableConfigUtils.getCalciteConfig(config))
                        .replaceSqlParserConfig(parserConfig)
                        .addSqlOperatorTable(operatorTable)
                        .replaceStreamProgram(streamProgram)
                        .replaceBatchProgram(batchProgram)
                        .build());
    }

    /** Whether the configuration replaces Flink's stream program by one that passes the test. */
    public static boolean hasStreamProgram(
            TableConfig config, Predicate<FlinkChainedProgram<StreamOptimizeContext>> test) {
        return JavaScalaConversionUtil.toJava(
                        TableConfigUtils.getCalciteConfig(config).getStreamProgram())
                .filter(test)
                .isPresent();
    }
}
