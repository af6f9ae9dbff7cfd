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

import dev.lateralsnapshot.planner.internal.ParserTokens.Kind;

import org.apache.calcite.sql.parser.SqlAbstractParserImpl.LexicalState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/** Guards for {@link ParserTokens}: the token manager of Flink's generated SQL parser. */
class ParserTokensTest {

    private final ParserTokens backTicks = ParserTokens.inLexicalState(LexicalState.BTID);

    @ParameterizedTest
    @EnumSource(LexicalState.class)
    void everyLexicalStateOfCalciteIsAStateOfFlinksTokenManager(LexicalState state) {
        assertThatCode(() -> ParserTokens.inLexicalState(state))
                .as(
                        "Flink's token manager (lexStateNames) no longer names a lexical state"
                                + " after Calcite's %s",
                        state)
                .doesNotThrowAnyException();
    }

    @Test
    void lateralCallTokens() {
        assertThat(kinds("SELECT * FROM t, LATERAL cat.f(1)"))
                .as("the token kinds of FlinkSqlParserImplConstants changed")
                .containsExactly(
                        Kind.OTHER,
                        Kind.OTHER,
                        Kind.OTHER,
                        Kind.NAME_SEGMENT,
                        Kind.OTHER,
                        Kind.LATERAL,
                        Kind.NAME_SEGMENT,
                        Kind.DOT,
                        Kind.NAME_SEGMENT,
                        Kind.LEFT_PARENTHESIS,
                        Kind.OTHER,
                        Kind.OTHER);
    }

    @Test
    void quotedIdentifiersAndNonReservedKeywordsAreNameSegments() {
        assertThat(kinds("`my table` snapshot"))
                .as(
                        "quoted identifiers and non-reserved keywords (tokenImage and the parser's"
                                + " metadata) are no longer name segments")
                .containsExactly(Kind.NAME_SEGMENT, Kind.NAME_SEGMENT);
    }

    @Test
    void reservedKeywordsAreNotNameSegments() {
        assertThat(kinds("LATERAL TABLE ("))
                .containsExactly(Kind.LATERAL, Kind.OTHER, Kind.LEFT_PARENTHESIS);
    }

    @Test
    void literalsAndCommentsAreSingleTokens() {
        assertThat(kinds("'lateral f(' -- lateral f(\n/* lateral f( */ x"))
                .containsExactly(Kind.OTHER, Kind.NAME_SEGMENT);
    }

    @Test
    void aLexicalErrorEndsTheScan() {
        // '#' is no token of Flink's SQL: the scan ends there, before "x".
        assertThat(kinds("LATERAL f ( # x"))
                .containsExactly(Kind.LATERAL, Kind.NAME_SEGMENT, Kind.LEFT_PARENTHESIS);
    }

    private List<Kind> kinds(String sql) {
        List<Kind> kinds = new ArrayList<>();
        ParserTokens.Scanner scanner = backTicks.scan(sql);
        for (Kind kind = scanner.next(); kind != null; kind = scanner.next()) {
            kinds.add(kind);
        }
        assertThat(scanner.next()).as("the scan stays at its end").isNull();
        return kinds;
    }
}
