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

import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.dialect.AnsiSqlDialect;
import org.apache.calcite.sql.dialect.CalciteSqlDialect;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Parses with the three parser configurations under test and renders results so that two parses can
 * be compared as strings (AssertJ then shows a readable diff).
 */
final class ParserComparison {

    /** What Flink's planner uses. */
    static final SqlParser.Config FLINK =
            LateralSnapshotParserFactory.parserConfig()
                    .withParserFactory(FlinkSqlParserImpl.FACTORY);

    /** Our generated parser for every statement, to compare the grammars themselves. */
    static final SqlParser.Config OURS =
            LateralSnapshotParserFactory.parserConfig()
                    .withParserFactory(LateralSnapshotSqlParserImpl.FACTORY);

    /** What the planner gets when the library is installed. */
    static final SqlParser.Config DISPATCHING = LateralSnapshotParserFactory.parserConfig();

    private ParserComparison() {}

    static SqlNodeList parse(SqlParser.Config config, String sql) {
        try {
            return SqlParser.create(sql, config).parseStmtList();
        } catch (SqlParseException e) {
            throw new AssertionError("cannot parse: " + sql, e);
        }
    }

    /** The error of parsing the SQL, rendered with its position and expected tokens. */
    static String parseError(SqlParser.Config config, String sql) {
        try {
            SqlParser.create(sql, config).parseStmtList();
            return "no error";
        } catch (SqlParseException e) {
            return e.getMessage()
                    + "\n[position "
                    + position(e.getPos())
                    + ", expected "
                    + e.getExpectedTokenNames()
                    + ", cause "
                    // a lexical error's cause is each parser's own TokenMgrError class
                    + (e.getCause() == null ? null : e.getCause().getClass().getSimpleName())
                    + "]";
        }
    }

    /** Each statement unparsed in the ANSI and the Calcite dialect. */
    static String unparse(SqlNodeList statements) {
        StringBuilder text = new StringBuilder();
        for (SqlNode statement : statements) {
            text.append(render(statement::toString))
                    .append("\n-- calcite --\n")
                    .append(render(() -> statement.toSqlString(CalciteSqlDialect.DEFAULT).getSql()))
                    .append("\n-- ansi --\n")
                    .append(render(() -> statement.toSqlString(AnsiSqlDialect.DEFAULT).getSql()))
                    .append("\n;\n");
        }
        return text.toString();
    }

    /**
     * The tree: node classes, kinds, operators with their function category, names, literal values
     * and, optionally, the parser position of every node and identifier segment.
     */
    static String tree(SqlNode node, boolean withPositions) {
        StringBuilder text = new StringBuilder();
        appendTree(node, withPositions, 0, text);
        return text.toString();
    }

    private static void appendTree(
            SqlNode node, boolean withPositions, int depth, StringBuilder text) {
        text.append("  ".repeat(depth));
        if (node == null) {
            text.append("null\n");
            return;
        }
        text.append(node.getClass().getName()).append(' ').append(node.getKind());
        if (withPositions) {
            text.append(" @").append(position(node.getParserPosition()));
        }
        List<SqlNode> children = new ArrayList<>();
        if (node instanceof SqlIdentifier) {
            SqlIdentifier identifier = (SqlIdentifier) node;
            text.append(' ').append(identifier.names);
            if (withPositions) {
                for (int i = 0; i < identifier.names.size(); i++) {
                    text.append(" @").append(position(identifier.getComponentParserPosition(i)));
                }
            }
        } else if (node instanceof SqlLiteral) {
            SqlLiteral literal = (SqlLiteral) node;
            text.append(' ').append(literal.getTypeName()).append(' ').append(literal.getValue());
        } else if (node instanceof SqlNodeList) {
            children.addAll(((SqlNodeList) node).getList());
        } else if (node instanceof SqlCall) {
            SqlCall call = (SqlCall) node;
            text.append(" operator=")
                    .append(call.getOperator().getClass().getName())
                    .append(':')
                    .append(call.getOperator().getName());
            if (call.getOperator() instanceof SqlFunction) {
                text.append(" category=")
                        .append(((SqlFunction) call.getOperator()).getFunctionType());
            }
            if (call.getFunctionQuantifier() != null) {
                text.append(" quantifier=").append(call.getFunctionQuantifier());
            }
            try {
                children.addAll(call.getOperandList());
            } catch (RuntimeException e) {
                text.append(" operands=<").append(e.getClass().getName()).append('>');
            }
        } else {
            text.append(' ').append(render(node::toString));
        }
        text.append('\n');
        for (SqlNode child : children) {
            appendTree(child, withPositions, depth + 1, text);
        }
    }

    static String position(SqlParserPos pos) {
        return pos == null
                ? "null"
                : pos.getLineNum()
                        + ":"
                        + pos.getColumnNum()
                        + "-"
                        + pos.getEndLineNum()
                        + ":"
                        + pos.getEndColumnNum()
                        + (pos.isQuoted() ? " quoted" : "");
    }

    /** Some of Flink's nodes cannot unparse; that must match too. */
    private static String render(Supplier<String> text) {
        try {
            return text.get();
        } catch (RuntimeException e) {
            return "<" + e.getClass().getName() + ": " + e.getMessage() + ">";
        }
    }
}
