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

import dev.lateralsnapshot.planner.internal.ParserTokens;

import org.apache.flink.sql.parser.impl.FlinkSqlParserImpl;
import org.apache.flink.sql.parser.validate.FlinkSqlConformance;

import org.apache.calcite.config.Lex;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl.LexicalState;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserImplFactory;
import org.apache.calcite.util.SourceStringReader;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;

/**
 * The parser factory the planner installs: Flink's own {@link FlinkSqlParserImpl} for every
 * statement, except those that call a table function after {@code LATERAL} without {@code
 * TABLE(...)}, such as {@code JOIN LATERAL SNAPSHOT(...)}, which only {@link
 * LateralSnapshotSqlParserImpl} understands.
 *
 * <p>Why not always our parser, although it accepts everything Flink's accepts: Flink's {@code
 * CalciteParser#parseIdentifier} (behind {@code TableEnvironment#from(String)}, function lookup in
 * the Table API and more) fails with "Unrecognized sql parser type" unless the factory returns an
 * instance of {@link FlinkSqlParserImpl}. Handing out Flink's parser for every ordinary statement
 * also keeps its error messages and behaviour unchanged by construction.
 *
 * <p>How it decides: the statement is scanned with Flink's own token manager ({@link
 * ParserTokens}), in the lexical state the configured quoting selects, looking for the tokens
 * {@code LATERAL <name> (}, where {@code <name>} is an identifier, quoted or not, or a non-reserved
 * keyword, possibly compound ({@code LATERAL cat.db.f(}). String literals, comments and quoted
 * identifiers are single tokens, so a {@code lateral} inside them does not count; {@code LATERAL
 * TABLE(}, {@code LATERAL (query)} and {@code LATERAL UNNEST(} do not match because those words are
 * reserved. A statement that does not even contain the letters {@code lateral} is not scanned at
 * all, so most statements pay almost nothing for the dispatch. A lexical error ends the scan:
 * Flink's parser then reports it.
 */
public final class LateralSnapshotParserFactory implements SqlParserImplFactory {

    private static final String LATERAL_KEYWORD = "LATERAL";

    private static final SqlParser.Config PARSER_CONFIG = createParserConfig();

    /** Flink's tokens in the lexical state the parser itself would choose. */
    private final ParserTokens tokens;

    private LateralSnapshotParserFactory(LexicalState lexicalState) {
        this.tokens = ParserTokens.inLexicalState(lexicalState);
    }

    /**
     * The parser configuration to install in the planner (through {@code
     * CalciteConfig#replaceSqlParserConfig}): the one Flink's {@code
     * PlannerContext#getSqlParserConfig} builds, with this factory instead of Flink's.
     *
     * <p>Flink derives the conformance from {@code table.sql-dialect}, but maps every dialect it
     * knows ({@code default} and {@code hive}) to {@link FlinkSqlConformance#DEFAULT}. One
     * configuration therefore serves every dialect, and stays right when a session switches the
     * dialect with {@code SET} after the configuration was installed.
     *
     * <p>The factory in it scans statements in the lexical state of this configuration's quoting
     * (back-ticks, as in Flink); install the configuration as it is rather than changing it.
     */
    public static SqlParser.Config parserConfig() {
        return PARSER_CONFIG;
    }

    @Override
    public SqlAbstractParserImpl getParser(Reader reader) {
        final String sql;
        final Reader source;
        if (reader instanceof SourceStringReader) {
            sql = ((SourceStringReader) reader).getSourceString();
            source = reader;
        } else {
            // Any other reader is read here, so hand on a reader of the same (non-source) kind:
            // the parser factories only record the statement text for a SourceStringReader.
            sql = readFully(reader);
            source = new StringReader(sql);
        }
        SqlParserImplFactory factory =
                containsLateralCall(sql)
                        ? LateralSnapshotSqlParserImpl.FACTORY
                        : FlinkSqlParserImpl.FACTORY;
        return factory.getParser(source);
    }

    /** Whether the SQL contains the tokens {@code LATERAL <name> (}, see the class comment. */
    boolean containsLateralCall(String sql) {
        if (!mentionsLateral(sql)) {
            return false;
        }
        ParserTokens.Scanner scanner = tokens.scan(sql);
        boolean expectName = false;
        boolean afterName = false;
        for (ParserTokens.Kind kind = scanner.next(); kind != null; kind = scanner.next()) {
            if (afterName && kind == ParserTokens.Kind.LEFT_PARENTHESIS) {
                return true;
            }
            // "LATERAL" and "LATERAL a." expect a name segment next; after a segment, "."
            // continues the name and "(" completes the match. Anything else starts over.
            boolean nameSegment = expectName && kind == ParserTokens.Kind.NAME_SEGMENT;
            expectName =
                    kind == ParserTokens.Kind.LATERAL
                            || (afterName && kind == ParserTokens.Kind.DOT);
            afterName = nameSegment;
        }
        return false;
    }

    /**
     * A necessary condition for a LATERAL token, cheap enough to run on every statement: the token
     * manager matches keywords ignoring the case of ASCII letters only (checked for every UTF-16
     * character on Flink 2.3.0), and {@code regionMatches} accepts a superset of that.
     */
    private static boolean mentionsLateral(String sql) {
        int last = sql.length() - LATERAL_KEYWORD.length();
        for (int i = 0; i <= last; i++) {
            char c = sql.charAt(i);
            if ((c == 'L' || c == 'l')
                    && sql.regionMatches(true, i, LATERAL_KEYWORD, 0, LATERAL_KEYWORD.length())) {
                return true;
            }
        }
        return false;
    }

    private static String readFully(Reader reader) {
        StringBuilder sql = new StringBuilder();
        char[] buffer = new char[4096];
        try {
            for (int n = reader.read(buffer); n >= 0; n = reader.read(buffer)) {
                sql.append(buffer, 0, n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sql.toString();
    }

    private static SqlParser.Config createParserConfig() {
        // Java lexing (back-tick quoting, case preserved) and the rest exactly as Flink sets them.
        SqlParser.Config flinkConfig =
                SqlParser.config()
                        .withConformance(FlinkSqlConformance.DEFAULT)
                        .withLex(Lex.JAVA)
                        .withIdentifierMaxLength(256);
        return flinkConfig.withParserFactory(
                new LateralSnapshotParserFactory(LexicalState.forConfig(flinkConfig)));
    }
}
