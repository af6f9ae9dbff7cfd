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

import org.apache.flink.sql.parser.impl.FlinkSqlParserImpl;
import org.apache.flink.sql.parser.validate.FlinkSqlConformance;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.planner.calcite.CalciteConfig;
import org.apache.flink.table.planner.plan.optimize.program.FlinkBatchProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkChainedProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkStreamProgram;
import org.apache.flink.table.planner.plan.optimize.program.StreamOptimizeContext;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;

import org.apache.calcite.config.Lex;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.apache.calcite.sql2rel.SqlToRelConverter;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.assertj.core.api.Assertions.assertThat;

/** Guards for {@link PlannerConfigs}: the planner configuration behind a table configuration. */
class PlannerConfigsTest {

    @Test
    void extendsThePlannerConfigurationAndReadsItBack() {
        TableConfig config = TableConfig.getDefault();
        SqlToRelConverter.Config sqlToRel = SqlToRelConverter.config().withExpand(true);
        config.setPlannerConfig(
                CalciteConfig.createBuilder().replaceSqlToRelConverterConfig(sqlToRel).build());
        assertThat(PlannerConfigs.hasStreamProgram(config, program -> true)).isFalse();

        SqlParser.Config parserConfig = SqlParser.config().withIdentifierMaxLength(12);
        SqlOperatorTable operatorTable = SqlOperatorTables.of();
        FlinkChainedProgram<StreamOptimizeContext> stream = FlinkStreamProgram.buildProgram(config);
        PlannerConfigs.extend(
                config,
                parserConfig,
                operatorTable,
                stream,
                FlinkBatchProgram.buildProgram(config));

        assertThat(PlannerConfigs.hasStreamProgram(config, program -> program == stream))
                .as("the stream program set through CalciteConfig is no longer read back")
                .isTrue();
        CalciteConfig calciteConfig = config.getPlannerConfig().unwrap(CalciteConfig.class).get();
        assertThat(JavaScalaConversionUtil.toJava(calciteConfig.getSqlParserConfig()))
                .hasValue(parserConfig);
        assertThat(JavaScalaConversionUtil.toJava(calciteConfig.getSqlToRelConverterConfig()))
                .as("the settings of an installed planner configuration must be kept")
                .hasValue(sqlToRel);
    }

    @Test
    void theEnvironmentsPlannerReadsTheConfigurationForEveryStatement() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql(createTable("t", "k STRING", "'connector' = 'datagen'"));
        env.explainSql("SELECT k FROM t");

        List<String> optimized = new ArrayList<>();
        FlinkChainedProgram<StreamOptimizeContext> stream =
                OptimizerPrograms.perOptimization(
                        "recording",
                        tableConfig -> {
                            optimized.add("optimized");
                            return FlinkStreamProgram.buildProgram(tableConfig);
                        });
        // Flink's parser configuration, as its planner builds it.
        SqlParser.Config flinkParserConfig =
                SqlParser.config()
                        .withParserFactory(FlinkSqlParserImpl.FACTORY)
                        .withConformance(FlinkSqlConformance.DEFAULT)
                        .withLex(Lex.JAVA)
                        .withIdentifierMaxLength(256);
        PlannerConfigs.extend(
                env.getConfig(),
                flinkParserConfig,
                SqlOperatorTables.of(),
                stream,
                FlinkBatchProgram.buildProgram(env.getConfig()));
        env.explainSql("SELECT k FROM t");

        assertThat(optimized)
                .as(
                        "Flink's planner no longer reads the planner configuration set after the"
                                + " environment was created")
                .hasSize(1);
    }
}
