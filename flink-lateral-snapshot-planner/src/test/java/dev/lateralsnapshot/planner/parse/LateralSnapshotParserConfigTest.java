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

package dev.lateralsnapshot.planner.parse;

import dev.lateralsnapshot.planner.SnapshotTestEnvironments;

import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.FunctionHint;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.SqlDialect;
import org.apache.flink.table.api.SqlParserException;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.functions.TableFunction;
import org.apache.flink.table.planner.calcite.CalciteConfig;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.types.Row;

import org.apache.calcite.sql.parser.SqlParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The parser configuration inside a real table environment. */
class LateralSnapshotParserConfigTest {

    /** Equal to what Flink's planner builds, in every dialect, but for the factory. */
    @ParameterizedTest
    @EnumSource(SqlDialect.class)
    void equalsFlinksConfigurationButForTheFactory(SqlDialect dialect) {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.getConfig().setSqlDialect(dialect);

        SqlParser.Config flinks = parserConfigOf(env);
        SqlParser.Config ours = LateralSnapshotParserFactory.parserConfig();

        assertThat(ours.parserFactory()).isNotSameAs(flinks.parserFactory());
        assertThat(ours.withParserFactory(flinks.parserFactory())).isEqualTo(flinks);
    }

    @Test
    void installedInATableEnvironment() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.getConfig()
                .setPlannerConfig(
                        CalciteConfig.createBuilder()
                                .replaceSqlParserConfig(LateralSnapshotParserFactory.parserConfig())
                                .build());
        assertThat(parserConfigOf(env)).isSameAs(LateralSnapshotParserFactory.parserConfig());

        env.executeSql(
                "CREATE TEMPORARY VIEW orders AS SELECT * FROM (VALUES (1, 'a b'), (2, 'c')) AS t"
                        + " (id, tags)");
        env.createTemporarySystemFunction("split", Split.class);

        String lateralCall = "SELECT id, tag FROM orders AS o, LATERAL split(o.tags) AS t (tag)";
        String lateralTable =
                "SELECT id, tag FROM orders AS o, LATERAL TABLE(split(o.tags)) AS t (tag)";
        // correlation variables are numbered per environment: $cor0 first, $cor1 next
        assertThat(env.explainSql(lateralCall).replaceAll("\\$cor\\d+", "\\$cor"))
                .isEqualTo(env.explainSql(lateralTable).replaceAll("\\$cor\\d+", "\\$cor"));
        // identifiers are parsed by Flink's parser class only, see LateralSnapshotParserFactory
        assertThat(env.from("orders").getResolvedSchema().getColumnNames())
                .containsExactly("id", "tags");
        assertThatThrownBy(() -> env.sqlQuery("SELECT * FORM orders"))
                .isInstanceOf(SqlParserException.class)
                .hasMessageContaining("Encountered \"orders\" at line 1, column 15.");
    }

    private static SqlParser.Config parserConfigOf(TableEnvironment env) {
        PlannerBase planner = SnapshotTestEnvironments.flinkPlanner(env);
        return planner.createFlinkPlanner().config().getParserConfig();
    }

    /** Splits a string at spaces. */
    @FunctionHint(output = @DataTypeHint("ROW<tag STRING>"))
    public static class Split extends TableFunction<Row> {
        public void eval(String tags) {
            for (String tag : tags.split(" ")) {
                collect(Row.of(tag));
            }
        }
    }
}
