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

import org.apache.flink.table.api.SqlParserEOFException;
import org.apache.flink.table.planner.parse.CalciteParser;

import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static dev.lateralsnapshot.planner.parse.ParserComparison.DISPATCHING;
import static dev.lateralsnapshot.planner.parse.ParserComparison.FLINK;
import static dev.lateralsnapshot.planner.parse.ParserComparison.OURS;
import static dev.lateralsnapshot.planner.parse.ParserComparison.parse;
import static dev.lateralsnapshot.planner.parse.ParserComparison.parseError;
import static dev.lateralsnapshot.planner.parse.ParserComparison.position;
import static dev.lateralsnapshot.planner.parse.ParserComparison.tree;
import static dev.lateralsnapshot.planner.parse.ParserComparison.unparse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every way of writing the new syntax parses to exactly the tree Flink's parser builds for the same
 * statement written with {@code LATERAL TABLE(...)}.
 */
class LateralCallSyntaxTest {

    private static final String SNAPSHOT =
            "SNAPSHOT(input => TABLE rates, on_time => DESCRIPTOR(update_time))";

    private static final String ON_CURRENCY = " ON o.currency = r.currency";

    /**
     * Statements in which {@code [[call]]} marks a table function call: the new syntax writes it as
     * is, the established one as {@code TABLE(call)}.
     */
    static Stream<String> statements() {
        String snapshot = "[[" + SNAPSHOT + "]]";
        String select = "SELECT o.order_id, o.currency, r.rate FROM orders AS o ";
        return Stream.of(
                select + "JOIN LATERAL " + snapshot + " AS r" + ON_CURRENCY,
                select + "INNER JOIN LATERAL " + snapshot + " AS r" + ON_CURRENCY,
                select + "LEFT JOIN LATERAL " + snapshot + " AS r" + ON_CURRENCY,
                select + "LEFT OUTER JOIN LATERAL " + snapshot + " AS r" + ON_CURRENCY,
                select + "CROSS JOIN LATERAL " + snapshot + " AS r WHERE o.currency = r.currency",
                "SELECT o.order_id, r.rate FROM orders AS o, LATERAL "
                        + snapshot
                        + " AS r WHERE o.currency = r.currency",
                "SELECT * FROM orders o JOIN LATERAL " + snapshot + " r" + ON_CURRENCY,
                "SELECT * FROM orders AS o JOIN LATERAL "
                        + snapshot
                        + " AS r (c, rate, t) ON o.currency = r.c",
                "SELECT * FROM orders CROSS JOIN LATERAL " + snapshot,
                "SELECT * FROM orders, LATERAL " + snapshot,
                // all arguments, the example of docs/lateral-snapshot-join.md, "Syntax"
                "SELECT o.order_id, o.currency, r.rate\n"
                        + "FROM orders AS o\n"
                        + "LEFT JOIN LATERAL [[SNAPSHOT(\n"
                        + "    input => TABLE rates,\n"
                        + "    on_time => DESCRIPTOR(update_time),\n"
                        + "    load_completed_time => CAST('2024-01-01 00:00:00' AS"
                        + " TIMESTAMP_LTZ(3)),\n"
                        + "    load_completed_idle_timeout => INTERVAL '10' SECOND,\n"
                        + "    state_ttl => INTERVAL '1' HOUR\n"
                        + ")]] AS r\n"
                        + "ON o.currency = r.currency",
                // positional arguments
                "SELECT * FROM orders AS o JOIN LATERAL [[SNAPSHOT(TABLE rates,"
                        + " DESCRIPTOR(update_time))]] AS r"
                        + ON_CURRENCY,
                // keywords in any case
                "select * from orders as o join lateral [[snapshot(input => table rates,"
                        + " on_time => descriptor(update_time))]] as r on o.currency = r.currency",
                "SeLeCt * FrOm orders o LeFt JoIn LaTeRaL [[SnapShot(INPUT => Table rates,"
                        + " On_Time => DeScRiPtOr(update_time))]] r On TrUe",
                // qualified and quoted function names
                "SELECT * FROM orders AS o JOIN LATERAL [[cat.db.SNAPSHOT(input => TABLE rates,"
                        + " on_time => DESCRIPTOR(update_time))]] AS r"
                        + ON_CURRENCY,
                "SELECT * FROM orders AS o JOIN LATERAL [[`SNAPSHOT`(input => TABLE rates,"
                        + " on_time => DESCRIPTOR(update_time))]] AS r"
                        + ON_CURRENCY,
                // comments where whitespace may be
                "SELECT * -- probe side first\nFROM orders AS o\nJOIN LATERAL /* build side */ "
                        + snapshot
                        + " /* alias */ AS r"
                        + ON_CURRENCY,
                // the input is a CTE, a view or a qualified table
                "WITH latest AS (SELECT * FROM rates WHERE rate > 0) SELECT * FROM orders AS o JOIN"
                        + " LATERAL [[SNAPSHOT(input => TABLE latest, on_time =>"
                        + " DESCRIPTOR(update_time))]] AS r"
                        + ON_CURRENCY,
                "SELECT * FROM orders AS o JOIN LATERAL [[SNAPSHOT(input => TABLE cat.db.rates,"
                        + " on_time => DESCRIPTOR(update_time))]] AS r"
                        + ON_CURRENCY,
                // two calls, nested in a subquery, next to other joins
                "SELECT * FROM orders AS o JOIN LATERAL "
                        + snapshot
                        + " AS r"
                        + ON_CURRENCY
                        + " LEFT JOIN LATERAL [[SNAPSHOT(input => TABLE fees, on_time =>"
                        + " DESCRIPTOR(ts))]] AS f ON o.currency = f.currency JOIN customers AS c"
                        + " ON o.customer = c.id",
                "SELECT * FROM (SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL "
                        + snapshot
                        + " AS r"
                        + ON_CURRENCY
                        + ") WHERE rate > 1",
                // statements that contain a query
                "INSERT INTO enriched SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL "
                        + snapshot
                        + " AS r"
                        + ON_CURRENCY,
                "EXPLAIN PLAN FOR SELECT * FROM orders AS o JOIN LATERAL "
                        + snapshot
                        + " AS r"
                        + ON_CURRENCY,
                "EXPLAIN CHANGELOG_MODE, ESTIMATED_COST SELECT * FROM orders AS o LEFT JOIN LATERAL"
                        + " "
                        + snapshot
                        + " AS r"
                        + ON_CURRENCY,
                "EXPLAIN INSERT INTO enriched SELECT * FROM orders AS o, LATERAL "
                        + snapshot
                        + " AS r WHERE o.currency = r.currency",
                "EXECUTE STATEMENT SET BEGIN\n"
                        + "INSERT INTO s1 SELECT * FROM orders AS o JOIN LATERAL "
                        + snapshot
                        + " AS r"
                        + ON_CURRENCY
                        + ";\n"
                        + "INSERT INTO s2 SELECT * FROM orders AS o CROSS JOIN LATERAL "
                        + snapshot
                        + " AS r WHERE o.currency = r.currency;\n"
                        + "END",
                "CREATE VIEW enriched AS SELECT o.order_id, r.rate FROM orders AS o JOIN LATERAL "
                        + snapshot
                        + " AS r"
                        + ON_CURRENCY,
                "CREATE TABLE enriched WITH ('connector' = 'blackhole') AS SELECT * FROM orders AS"
                        + " o JOIN LATERAL "
                        + snapshot
                        + " AS r"
                        + ON_CURRENCY,
                // several statements at once, as in a SQL script
                "SET 'table.exec.state.ttl' = '1 h';\n"
                        + "INSERT INTO enriched SELECT * FROM orders AS o JOIN LATERAL "
                        + snapshot
                        + " AS r"
                        + ON_CURRENCY
                        + ";\nSELECT 1;",
                // not only SNAPSHOT: any table function
                "SELECT o.order_id, t.tag FROM orders AS o, LATERAL [[split(o.tags, ',')]] AS t"
                        + " (tag)",
                "SELECT * FROM orders AS o LEFT JOIN LATERAL [[f()]] ON TRUE");
    }

    @ParameterizedTest
    @MethodSource("statements")
    void parsesToTheTreeOfLateralTable(String statement) {
        String lateralCall = newSyntax(statement);
        String lateralTable = lateralTableSyntax(statement);

        assertThat(parseError(FLINK, lateralCall))
                .as("Flink's own parser must reject the new syntax")
                .isNotEqualTo("no error");
        SqlNodeList expected = parse(FLINK, lateralTable);
        SqlNodeList actual = parse(DISPATCHING, lateralCall);
        assertThat(tree(actual, false)).isEqualTo(tree(expected, false));
        assertThat(unparse(actual)).isEqualTo(unparse(expected));
    }

    @ParameterizedTest
    @MethodSource("statements")
    void lateralTableSyntaxIsUnchanged(String statement) {
        String lateralTable = lateralTableSyntax(statement);

        assertThat(tree(parse(OURS, lateralTable), true))
                .isEqualTo(tree(parse(FLINK, lateralTable), true));
        assertThat(tree(parse(DISPATCHING, lateralTable), true))
                .isEqualTo(tree(parse(FLINK, lateralTable), true));
    }

    @Test
    void namedArgumentsInAnyOrder() {
        List<String> arguments =
                List.of(
                        "input => TABLE rates",
                        "on_time => DESCRIPTOR(update_time)",
                        "load_completed_time => CAST('2024-01-01 00:00:00' AS TIMESTAMP_LTZ(3))",
                        "load_completed_idle_timeout => INTERVAL '10' SECOND",
                        "state_ttl => INTERVAL '1' HOUR");
        List<List<String>> orders = permutations(arguments);
        assertThat(orders).hasSize(120);
        for (List<String> order : orders) {
            String call = "SNAPSHOT(" + String.join(", ", order) + ")";
            String prefix = "SELECT * FROM orders AS o JOIN LATERAL ";
            SqlNodeList expected = parse(FLINK, prefix + "TABLE(" + call + ") AS r" + ON_CURRENCY);
            SqlNodeList actual = parse(DISPATCHING, prefix + call + " AS r" + ON_CURRENCY);
            assertThat(tree(actual, false)).as(call).isEqualTo(tree(expected, false));
        }
    }

    /** Validation errors point at the call, so its position must cover exactly the call text. */
    @Test
    void positionsCoverTheCall() {
        String sql =
                "SELECT *\nFROM orders AS o\nJOIN LATERAL SNAPSHOT(input => TABLE rates,\n"
                        + "    on_time => DESCRIPTOR(update_time)) AS r ON TRUE";
        SqlSelect select = (SqlSelect) parse(DISPATCHING, sql).get(0);
        SqlCall alias = (SqlCall) ((SqlJoin) select.getFrom()).getRight();
        SqlCall lateral = alias.operand(0);
        SqlCall collectionTable = lateral.operand(0);
        SqlBasicCall snapshot = collectionTable.operand(0);

        assertThat(lateral.getKind()).isEqualTo(SqlKind.LATERAL);
        assertThat(collectionTable.getKind()).isEqualTo(SqlKind.COLLECTION_TABLE);
        assertThat(snapshot.getOperator().getName()).isEqualTo("SNAPSHOT");
        assertThat(position(snapshot.getParserPosition())).isEqualTo("3:14-4:39");
        assertThat(position(collectionTable.getParserPosition())).isEqualTo("3:14-4:39");
        assertThat(position(((SqlNode) snapshot.operand(0)).getParserPosition()))
                .isEqualTo("3:23-3:42");
    }

    /**
     * Invalid statements that use the new syntax are parsed by our parser: errors before the call
     * are exactly Flink's, later ones point at the right token, and an incomplete statement is
     * still reported as incomplete (which Flink tells apart by "Encountered \"<EOF>\"").
     */
    @Test
    void errorsInStatementsWithALateralCall() {
        String beforeTheCall = "SELEC * FROM orders AS o, LATERAL f(1)";
        assertThat(parseError(DISPATCHING, beforeTheCall))
                .isEqualTo(parseError(FLINK, beforeTheCall));
        String inTheSelectList = "SELECT LATERAL f(1)";
        assertThat(parseError(DISPATCHING, inTheSelectList))
                .isEqualTo(parseError(FLINK, inTheSelectList));

        assertThat(parseError(DISPATCHING, "SELECT * FROM orders AS o, LATERAL LATERAL f(1)"))
                .startsWith("Incorrect syntax near the keyword 'LATERAL' at line 1, column 36.");
        assertThat(parseError(DISPATCHING, "SELECT * FROM orders AS o, LATERAL f(1) AS r ON TRUE"))
                .startsWith("Encountered \"ON\" at line 1, column 46.");
        assertThat(
                        parseError(
                                DISPATCHING,
                                "SELECT * FROM orders AS o JOIN LATERAL f(1, ) AS r ON TRUE"))
                .startsWith("Encountered \")\" at line 1, column 45.");
        assertThat(
                        parseError(
                                DISPATCHING,
                                "SELECT * FROM orders AS o, LATERAL SNAPSHOT(input => TABLE rates"))
                .startsWith("Encountered \"<EOF>\" at line 1, column 64.");
        assertThat(parseError(DISPATCHING, "SELECT * FROM orders AS o, LATERAL f(1) AS r WHERE"))
                .startsWith("Encountered \"<EOF>\" at line 1, column 50.");
        CalciteParser parser = new CalciteParser(DISPATCHING);
        assertThatThrownBy(
                        () ->
                                parser.parseSqlList(
                                        "SELECT * FROM orders AS o JOIN LATERAL SNAPSHOT(input =>"
                                                + " TABLE rates,"))
                .isInstanceOf(SqlParserEOFException.class);
    }

    private static String newSyntax(String statement) {
        return replaceCalls(statement, false);
    }

    private static String lateralTableSyntax(String statement) {
        return replaceCalls(statement, true);
    }

    private static String replaceCalls(String statement, boolean wrapInTable) {
        Matcher call = Pattern.compile("(?s)\\[\\[(.*?)]]").matcher(statement);
        StringBuilder sql = new StringBuilder();
        while (call.find()) {
            String text = wrapInTable ? "TABLE(" + call.group(1) + ")" : call.group(1);
            call.appendReplacement(sql, Matcher.quoteReplacement(text));
        }
        call.appendTail(sql);
        return sql.toString();
    }

    private static List<List<String>> permutations(List<String> items) {
        if (items.isEmpty()) {
            return List.of(List.of());
        }
        List<List<String>> result = new ArrayList<>();
        for (String first : items) {
            List<String> rest = new ArrayList<>(items);
            rest.remove(first);
            for (List<String> tail : permutations(rest)) {
                List<String> order = new ArrayList<>();
                order.add(first);
                order.addAll(tail);
                result.add(order);
            }
        }
        return result;
    }
}
