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

import org.apache.flink.sql.parser.impl.FlinkSqlParserImpl;
import org.apache.flink.sql.parser.impl.FlinkSqlParserImplConstants;
import org.apache.flink.sql.parser.impl.FlinkSqlParserImplTokenManager;
import org.apache.flink.table.planner.parse.CalciteParser;

import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.util.SourceStringReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static dev.lateralsnapshot.planner.parse.ParserComparison.FLINK;
import static dev.lateralsnapshot.planner.parse.ParserComparison.OURS;
import static dev.lateralsnapshot.planner.parse.ParserComparison.parseError;
import static dev.lateralsnapshot.planner.parse.ParserComparison.tree;
import static org.assertj.core.api.Assertions.assertThat;

/** Which parser the factory hands out, and what the rest of Flink needs from it. */
class LateralSnapshotParserFactoryTest {

    private static final LateralSnapshotParserFactory FACTORY =
            (LateralSnapshotParserFactory)
                    LateralSnapshotParserFactory.parserConfig().parserFactory();

    static Stream<String> lateralCalls() {
        return Stream.of(
                "SELECT * FROM a JOIN LATERAL SNAPSHOT(input => TABLE b, on_time => DESCRIPTOR(t))"
                        + " AS r ON TRUE",
                "select * from a left join lateral snapshot(input => table b) as r on true",
                "SELECT * FROM a, LaTeRaL f(1)",
                "SELECT * FROM a, LATERAL f ()",
                "SELECT * FROM a, LATERAL /* comment */ f -- comment\n (1)",
                "SELECT * FROM a, LATERAL\n\tf(\n1)",
                "SELECT * FROM a, LATERAL cat.db.f(1)",
                "SELECT * FROM a, LATERAL `cat`.`f`(1)",
                "SELECT * FROM a, LATERAL `lateral`(1)",
                "SELECT * FROM a, LATERAL LATERAL f(1)",
                "SELECT * FROM a, LATERAL TABLE(f(1)), LATERAL g(2)",
                "SELECT 1; SELECT * FROM a, LATERAL f(1)",
                "INSERT INTO s SELECT * FROM a, LATERAL f(1)",
                "EXPLAIN SELECT * FROM a, LATERAL f(1)",
                "EXECUTE STATEMENT SET BEGIN INSERT INTO s SELECT * FROM a, LATERAL f(1); END",
                // a lexical error after the call is reported by the parser that knows the call
                "SELECT * FROM a, LATERAL f(1) WHERE b = #",
                // the tokens decide, not where they stand
                "SELECT LATERAL f(1)");
    }

    static Stream<String> everythingElse() {
        return Stream.concat(
                Stream.of(
                        "SELECT 1",
                        "",
                        "SELECT 'LATERAL f(1)'",
                        "SELECT 'it''s LATERAL f(1)'",
                        "-- LATERAL f(1)\nSELECT 1",
                        "SELECT 1 /* LATERAL f(1) */",
                        "SELECT `LATERAL f(1)` FROM t",
                        "SELECT * FROM t /*+ OPTIONS('k' = 'LATERAL f(1)') */",
                        "SELECT lateral_f(1), f_lateral(2)",
                        "SELECT * FROM a, LATERAL TABLE(f(1))",
                        "SELECT * FROM a, lateral table (f(1))",
                        "SELECT * FROM a, LATERAL (SELECT 1)",
                        "SELECT * FROM a, LATERAL UNNEST(a.arr)",
                        "SELECT * FROM a, LATERAL f",
                        "SELECT * FROM a, LATERAL f AS x (y)",
                        "SELECT * FROM a, LATERAL 'f'(1)",
                        "SELECT * FROM a, LATERAL cat.",
                        // a lexical error before the call: Flink's parser reports it
                        "SELECT # FROM a, LATERAL f(1)"),
                Stream.of(
                                ParserParityTest.validStatements(),
                                ParserParityTest.invalidStatements(),
                                ParserParityTest.invalidAfterLateral())
                        .flatMap(statements -> statements));
    }

    @ParameterizedTest
    @MethodSource("lateralCalls")
    void lateralCallsGetOurParser(String sql) {
        assertThat(FACTORY.getParser(new SourceStringReader(sql)))
                .isInstanceOf(LateralSnapshotSqlParserImpl.class);
    }

    @ParameterizedTest
    @MethodSource("everythingElse")
    void everythingElseGetsFlinksParser(String sql) {
        assertThat(FACTORY.getParser(new SourceStringReader(sql)))
                .isInstanceOf(FlinkSqlParserImpl.class);
    }

    @Test
    void selectOneDoesNotUseTheGeneratedParser() {
        assertThat(FACTORY.getParser(new SourceStringReader("SELECT 1")))
                .isExactlyInstanceOf(FlinkSqlParserImpl.class)
                .isNotInstanceOf(LateralSnapshotSqlParserImpl.class);
    }

    @Test
    void generatedParserIsASeparateParserWithFlinksTokens() throws Exception {
        Class<?> parser =
                Class.forName("dev.lateralsnapshot.planner.parse.LateralSnapshotSqlParserImpl");

        assertThat(parser.getSuperclass()).isEqualTo(SqlAbstractParserImpl.class);
        assertThat(FlinkSqlParserImpl.class.isAssignableFrom(parser)).isFalse();
        // The dispatch reads token kinds from Flink's token manager: the patch adds no token.
        assertThat(LateralSnapshotSqlParserImplConstants.tokenImage)
                .containsExactly(FlinkSqlParserImplConstants.tokenImage);
        assertThat(LateralSnapshotSqlParserImplTokenManager.lexStateNames)
                .containsExactly(FlinkSqlParserImplTokenManager.lexStateNames);
    }

    /** Calcite hands over a plain reader when SQL comes from a stream; both parsers still work. */
    @Test
    void readsAnyReader() throws Exception {
        String lateralCall = "SELECT * FROM a, LATERAL f(1)";
        String lateralTable = "SELECT * FROM a, LATERAL TABLE(f(1))";
        SqlParser.Config config = LateralSnapshotParserFactory.parserConfig();

        assertThat(FACTORY.getParser(new StringReader(lateralCall)))
                .isInstanceOf(LateralSnapshotSqlParserImpl.class);
        assertThat(FACTORY.getParser(new StringReader(lateralTable)))
                .isInstanceOf(FlinkSqlParserImpl.class);
        assertThat(tree(SqlParser.create(new StringReader(lateralCall), config).parseStmt(), false))
                .isEqualTo(
                        tree(
                                SqlParser.create(new StringReader(lateralTable), config)
                                        .parseStmt(),
                                false));
    }

    /**
     * The dispatch calls a keyword a function name exactly when our grammar does: for every
     * keyword, {@code LATERAL <keyword>(1)} goes to our parser if and only if only our parser
     * accepts it.
     */
    @Test
    void namesAreWhatTheGrammarAcceptsAsNames() {
        List<String> disagreements = new ArrayList<>();
        int names = 0;
        for (String image : FlinkSqlParserImplConstants.tokenImage) {
            if (!image.matches("\"[A-Z_0-9]+\"")) {
                continue;
            }
            String keyword = image.substring(1, image.length() - 1);
            String sql = "SELECT * FROM a, LATERAL " + keyword + "(1)";
            boolean onlyOursAccepts =
                    parseError(OURS, sql).equals("no error")
                            && !parseError(FLINK, sql).equals("no error");
            boolean dispatched = FACTORY.containsLateralCall(sql);
            if (dispatched != onlyOursAccepts) {
                disagreements.add(keyword + (dispatched ? " dispatched" : " not dispatched"));
            }
            names += dispatched ? 1 : 0;
        }
        assertThat(disagreements).isEmpty();
        assertThat(names).as("non-reserved keywords usable as names").isGreaterThan(100);
    }

    /** The reason the factory exists: Flink parses identifiers only with its own parser class. */
    @Test
    void flinkCanStillParseIdentifiers() {
        CalciteParser parser = new CalciteParser(LateralSnapshotParserFactory.parserConfig());

        assertThat(parser.parseIdentifier("cat.db.`lateral`").names)
                .containsExactly("cat", "db", "lateral");
        assertThat(parser.parseIdentifier("SNAPSHOT").names).containsExactly("SNAPSHOT");
        SqlNode expression = parser.parseExpression("CAST(a AS INT) + 1");
        assertThat(expression.toString()).isEqualTo("CAST(`a` AS INTEGER) + 1");
    }
}
