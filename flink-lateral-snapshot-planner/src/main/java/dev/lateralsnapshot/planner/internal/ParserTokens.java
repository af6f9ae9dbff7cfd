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
import org.apache.flink.sql.parser.impl.FlinkSqlParserImplConstants;
import org.apache.flink.sql.parser.impl.FlinkSqlParserImplTokenManager;
import org.apache.flink.sql.parser.impl.SimpleCharStream;
import org.apache.flink.sql.parser.impl.Token;
import org.apache.flink.sql.parser.impl.TokenMgrError;

import org.apache.calcite.sql.parser.SqlAbstractParserImpl;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl.LexicalState;

import javax.annotation.Nullable;

import java.io.StringReader;
import java.util.Arrays;

/**
 * The tokens of a statement as Flink's own SQL parser sees them, from the token manager JavaCC
 * generates for it ({@code FlinkSqlParserImplTokenManager}). What this relies on: the token manager
 * names its lexical states after Calcite's {@link LexicalState} constants ({@code lexStateNames});
 * a keyword's token image is the keyword in double quotes ({@code tokenImage}); and the token kinds
 * of identifiers, {@code LATERAL}, {@code .} and {@code (} are the constants of {@code
 * FlinkSqlParserImplConstants}.
 */
public final class ParserTokens {

    /** What a token is, as far as recognizing a function call after {@code LATERAL} needs. */
    public enum Kind {
        /** The keyword {@code LATERAL}. */
        LATERAL,
        /** An identifier, quoted or not, or a non-reserved keyword: a segment of a name. */
        NAME_SEGMENT,
        /** {@code .} */
        DOT,
        /** {@code (} */
        LEFT_PARENTHESIS,
        /** Any other token. */
        OTHER
    }

    /** The kind of every token kind of Flink's token manager. */
    private static final Kind[] KINDS = classifyTokenKinds();

    /** Index of the lexical state in Flink's token manager. */
    private final int lexicalState;

    private ParserTokens(int lexicalState) {
        this.lexicalState = lexicalState;
    }

    /** The tokens in the lexical state Calcite selects for a parser configuration's quoting. */
    public static ParserTokens inLexicalState(LexicalState state) {
        int index =
                Arrays.asList(FlinkSqlParserImplTokenManager.lexStateNames).indexOf(state.name());
        if (index < 0) {
            throw new IllegalStateException(
                    String.format(
                            "Flink's SQL token manager has no lexical state %s (states: %s). This"
                                    + " library is built for Flink 2.3.0 only.",
                            state, Arrays.toString(FlinkSqlParserImplTokenManager.lexStateNames)));
        }
        return new ParserTokens(index);
    }

    /** Scans a statement. String literals, comments and quoted identifiers are single tokens. */
    public Scanner scan(String sql) {
        return new Scanner(
                new FlinkSqlParserImplTokenManager(
                        new SimpleCharStream(new StringReader(sql), 1, 1, sql.length() + 1),
                        lexicalState));
    }

    /** The tokens of one statement, in order. */
    public static final class Scanner {

        private final FlinkSqlParserImplTokenManager tokens;
        private boolean ended;

        private Scanner(FlinkSqlParserImplTokenManager tokens) {
            this.tokens = tokens;
        }

        /**
         * The kind of the next token; null at the end of the statement and at a lexical error,
         * which Flink's parser reports when it parses the statement.
         */
        @Nullable
        public Kind next() {
            if (ended) {
                return null;
            }
            try {
                Token token = tokens.getNextToken();
                if (token.kind != FlinkSqlParserImplConstants.EOF) {
                    return KINDS[token.kind];
                }
            } catch (TokenMgrError e) {
                // Ends the scan like the end of the statement.
            }
            ended = true;
            return null;
        }
    }

    private static Kind[] classifyTokenKinds() {
        String[] images = FlinkSqlParserImplConstants.tokenImage;
        Kind[] kinds = new Kind[images.length];
        Arrays.fill(kinds, Kind.OTHER);
        for (int kind :
                new int[] {
                    FlinkSqlParserImplConstants.IDENTIFIER,
                    FlinkSqlParserImplConstants.HYPHENATED_IDENTIFIER,
                    FlinkSqlParserImplConstants.QUOTED_IDENTIFIER,
                    FlinkSqlParserImplConstants.BACK_QUOTED_IDENTIFIER,
                    FlinkSqlParserImplConstants.BIG_QUERY_BACK_QUOTED_IDENTIFIER,
                    FlinkSqlParserImplConstants.BRACKET_QUOTED_IDENTIFIER,
                    FlinkSqlParserImplConstants.UNICODE_QUOTED_IDENTIFIER
                }) {
            kinds[kind] = Kind.NAME_SEGMENT;
        }
        // Keyword tokens have the image "\"WORD\""; the parser's metadata knows which are reserved.
        SqlAbstractParserImpl.Metadata metadata =
                FlinkSqlParserImpl.FACTORY.getParser(new StringReader("")).getMetadata();
        for (int kind = 0; kind < images.length; kind++) {
            String image = images[kind];
            if (image.length() > 2
                    && image.startsWith("\"")
                    && image.endsWith("\"")
                    && metadata.isNonReservedKeyword(image.substring(1, image.length() - 1))) {
                kinds[kind] = Kind.NAME_SEGMENT;
            }
        }
        kinds[FlinkSqlParserImplConstants.LATERAL] = Kind.LATERAL;
        kinds[FlinkSqlParserImplConstants.DOT] = Kind.DOT;
        kinds[FlinkSqlParserImplConstants.LPAREN] = Kind.LEFT_PARENTHESIS;
        return kinds;
    }
}
