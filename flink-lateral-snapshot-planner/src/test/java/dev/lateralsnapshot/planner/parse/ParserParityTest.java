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

import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.function.Function;
import java.util.stream.Stream;

import static dev.lateralsnapshot.planner.parse.ParserComparison.DISPATCHING;
import static dev.lateralsnapshot.planner.parse.ParserComparison.FLINK;
import static dev.lateralsnapshot.planner.parse.ParserComparison.OURS;
import static dev.lateralsnapshot.planner.parse.ParserComparison.parse;
import static dev.lateralsnapshot.planner.parse.ParserComparison.parseError;
import static dev.lateralsnapshot.planner.parse.ParserComparison.tree;
import static dev.lateralsnapshot.planner.parse.ParserComparison.unparse;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Our generated parser, on its own and behind the dispatching factory, treats every statement that
 * does not use the new syntax exactly like Flink's parser: same tree with the same positions, same
 * unparsed text, same error message, position and expected tokens.
 */
class ParserParityTest {

    static Stream<String> validStatements() {
        return Stream.of(
                // DDL
                "CREATE TABLE orders (order_id BIGINT, price DECIMAL(10, 2), currency STRING, tags"
                        + " ARRAY<STRING>, payload ROW<a INT, b MAP<STRING, INT>>, order_time"
                        + " TIMESTAMP(3), WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND,"
                        + " PRIMARY KEY (order_id) NOT ENFORCED) WITH ('connector' = 'kafka', 'topic' ="
                        + " 'orders', 'format' = 'json')",
                "CREATE TABLE rates (currency STRING, rate DECIMAL(10, 4), update_time"
                        + " TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL, proc AS PROCTIME(),"
                        + " WATERMARK FOR update_time AS update_time) COMMENT 'rates' PARTITIONED BY"
                        + " (currency) WITH ('connector' = 'upsert-kafka')",
                "CREATE TABLE t (a INT, b STRING) DISTRIBUTED BY HASH(a) INTO 4 BUCKETS WITH"
                        + " ('connector' = 'x')",
                "CREATE TEMPORARY TABLE t2 WITH ('connector' = 'blackhole') LIKE orders (EXCLUDING"
                        + " ALL)",
                "CREATE TABLE IF NOT EXISTS ctas WITH ('connector' = 'filesystem') AS SELECT * FROM"
                        + " orders",
                "CREATE OR REPLACE TABLE rtas WITH ('connector' = 'filesystem') AS SELECT * FROM"
                        + " orders",
                "CREATE VIEW v AS SELECT order_id, price FROM orders WHERE price > 10",
                "CREATE TEMPORARY VIEW IF NOT EXISTS v (a, b) COMMENT 'v' AS SELECT 1, 2",
                "ALTER VIEW v AS SELECT 1",
                "DROP VIEW IF EXISTS v",
                "CREATE TEMPORARY FUNCTION my_udtf AS 'com.example.MyUdtf' LANGUAGE JAVA",
                "CREATE TEMPORARY SYSTEM FUNCTION lateral_fn AS 'com.example.Lateral'",
                "CREATE FUNCTION IF NOT EXISTS cat.db.f AS 'com.example.F' USING JAR"
                        + " 'file:///opt/udf/f.jar'",
                "ALTER FUNCTION f AS 'com.example.G'",
                "DROP TEMPORARY SYSTEM FUNCTION IF EXISTS f",
                "CREATE CATALOG c WITH ('type' = 'generic_in_memory')",
                "ALTER CATALOG c SET ('k' = 'v')",
                "CREATE DATABASE IF NOT EXISTS db1 COMMENT 'x' WITH ('k' = 'v')",
                "ALTER DATABASE db1 SET ('k' = 'v')",
                "DROP DATABASE IF EXISTS db1 CASCADE",
                "DROP TABLE IF EXISTS orders",
                "ALTER TABLE orders SET ('k' = 'v')",
                "ALTER TABLE orders RESET ('k')",
                "ALTER TABLE orders RENAME TO orders2",
                "ALTER TABLE orders ADD (c INT COMMENT 'c', d AS c + 1)",
                "ALTER TABLE orders MODIFY WATERMARK FOR order_time AS order_time",
                "ALTER TABLE orders DROP PRIMARY KEY",
                "CREATE MODEL m INPUT (f1 INT) OUTPUT (label STRING) WITH ('provider' = 'openai')",
                "CREATE MATERIALIZED TABLE mt FRESHNESS = INTERVAL '1' MINUTE AS SELECT * FROM"
                        + " orders",
                "ANALYZE TABLE orders COMPUTE STATISTICS FOR ALL COLUMNS",
                // DML
                "INSERT INTO sink SELECT * FROM orders",
                "INSERT OVERWRITE sink PARTITION (dt = '2024-01-01') SELECT a, b FROM src",
                "INSERT INTO sink (a, b) VALUES (1, 'x'), (2, 'y')",
                "INSERT INTO sink /*+ OPTIONS('sink.parallelism' = '2') */ SELECT * FROM orders",
                "EXECUTE STATEMENT SET BEGIN INSERT INTO s1 SELECT * FROM orders;"
                        + " INSERT INTO s2 SELECT * FROM orders; END",
                "EXECUTE INSERT INTO s1 SELECT * FROM orders",
                "DELETE FROM orders WHERE order_id = 1",
                "UPDATE orders SET price = 1 WHERE order_id = 2",
                "TRUNCATE TABLE orders",
                "COMPILE PLAN 'file:///tmp/p.json' FOR INSERT INTO s1 SELECT * FROM orders",
                "EXECUTE PLAN 'file:///tmp/p.json'",
                "CALL cat.sys.compact('orders')",
                // queries
                "SELECT 1",
                "VALUES (1, 'a'), (2, 'b')",
                "SELECT window_start, window_end, SUM(price) FROM TABLE(TUMBLE(TABLE orders,"
                        + " DESCRIPTOR(order_time), INTERVAL '10' MINUTES)) GROUP BY window_start,"
                        + " window_end",
                "SELECT * FROM TABLE(HOP(DATA => TABLE orders, TIMECOL => DESCRIPTOR(order_time),"
                        + " SLIDE => INTERVAL '5' MINUTES, SIZE => INTERVAL '10' MINUTES))",
                "SELECT * FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '2'"
                        + " MINUTES, INTERVAL '10' MINUTES))",
                "SELECT * FROM TABLE(SESSION(TABLE orders PARTITION BY currency,"
                        + " DESCRIPTOR(order_time), INTERVAL '5' MINUTES))",
                "SELECT * FROM orders MATCH_RECOGNIZE (PARTITION BY currency ORDER BY order_time"
                        + " MEASURES A.price AS a_price, LAST(B.price) AS b_price ONE ROW PER MATCH"
                        + " AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+) DEFINE B AS B.price >"
                        + " A.price) AS T",
                "SELECT o.order_id, r.rate FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF"
                        + " o.order_time AS r ON o.currency = r.currency",
                "SELECT o.order_id, t.word FROM orders AS o, LATERAL TABLE(split(o.tags)) AS"
                        + " t(word)",
                "SELECT o.order_id, t.word FROM orders AS o LEFT JOIN LATERAL TABLE(split(o.tags))"
                        + " AS t(word) ON TRUE",
                "SELECT * FROM orders o, LATERAL TABLE(split(o.tags))",
                "SELECT * FROM orders o JOIN LATERAL TABLE(SNAPSHOT(input => TABLE rates,"
                        + " on_time => DESCRIPTOR(update_time))) AS r ON o.currency = r.currency",
                "SELECT * FROM orders o, LATERAL TABLE(SPECIFIC f(1))",
                "SELECT o.order_id, t.item FROM orders AS o CROSS JOIN UNNEST(o.items) AS t(item)",
                "SELECT * FROM orders, LATERAL UNNEST(orders.arr) WITH ORDINALITY AS t(v, pos)",
                "SELECT * FROM orders o, LATERAL (SELECT * FROM rates r WHERE r.currency ="
                        + " o.currency)",
                "SELECT * FROM orders o JOIN LATERAL (SELECT * FROM rates r WHERE r.currency ="
                        + " o.currency) AS x ON TRUE",
                "SELECT * FROM orders /*+ OPTIONS('scan.startup.mode' = 'earliest-offset') */",
                "SELECT /*+ BROADCAST(r) */ * FROM orders o JOIN rates r ON o.currency ="
                        + " r.currency",
                "SELECT * FROM my_ptf(input => TABLE orders PARTITION BY currency, uid => 'x')",
                "SELECT * FROM TABLE(my_ptf(TABLE orders PARTITION BY currency ORDER BY"
                        + " order_time))",
                "SELECT * FROM my_tf(1, 'a')",
                "SELECT * FROM TABLE(SNAPSHOT(input => TABLE rates, on_time =>"
                        + " DESCRIPTOR(update_time)))",
                "SELECT * FROM ML_PREDICT(TABLE t, MODEL m, DESCRIPTOR(f1))",
                "SELECT currency, COUNT(*) OVER (PARTITION BY currency ORDER BY order_time"
                        + " ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) FROM orders",
                "WITH t AS (SELECT * FROM orders), u AS (SELECT * FROM t) SELECT * FROM u WHERE"
                        + " order_id IN (SELECT order_id FROM t2) AND EXISTS (SELECT 1 FROM t)",
                "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY price"
                        + " DESC) AS rn FROM orders) WHERE rn <= 3",
                "SELECT CAST(price AS STRING), TRY_CAST(a AS INT), JSON_VALUE(payload, '$.a'),"
                        + " `select`, CASE WHEN a IS NULL THEN 1 ELSE 2 END, ARRAY[1, 2], MAP['a', 1],"
                        + " ROW(1, 'x') FROM orders",
                "SELECT * FROM orders AS o JOIN rates AS r ON o.currency = r.currency AND"
                        + " r.update_time BETWEEN o.order_time - INTERVAL '1' HOUR AND o.order_time",
                "SELECT SESSION_START(order_time, INTERVAL '1' HOUR) FROM orders"
                        + " GROUP BY SESSION(order_time, INTERVAL '1' HOUR)",
                "SELECT a, b, SUM(c) FROM t GROUP BY GROUPING SETS ((a, b), (a), ()) HAVING SUM(c)"
                        + " > 1",
                "SELECT a FROM t UNION ALL SELECT b FROM u EXCEPT SELECT c FROM w ORDER BY 1 LIMIT"
                        + " 10 OFFSET 5",
                "SELECT DISTINCT a FROM t ORDER BY a DESC NULLS LAST FETCH FIRST 3 ROWS ONLY",
                "SELECT U&'\\00e9t\\00e9', X'0F', 'it''s', N'national', 1.5e3, -.5, DATE"
                        + " '2024-01-01', TIMESTAMP '2024-01-01 00:00:00', INTERVAL '1' DAY TO HOUR",
                "SELECT lateral_x, x.`lateral` FROM `lateral` AS x WHERE s = 'LATERAL f(x)' --"
                        + " LATERAL g(y)",
                "SELECT /* LATERAL f(1) */ 1",
                "SELECT CURRENT_TIMESTAMP, LOCALTIMESTAMP, PROCTIME(), NOW(), TIMESTAMPADD(DAY, 1,"
                        + " d) FROM t",
                // statements of the SQL Client and the gateway
                "SET 'table.exec.mini-batch.enabled' = 'true'",
                "SET",
                "RESET 'table.exec.mini-batch.enabled'",
                "RESET",
                "EXPLAIN PLAN FOR SELECT * FROM orders",
                "EXPLAIN CHANGELOG_MODE, ESTIMATED_COST, JSON_EXECUTION_PLAN SELECT * FROM orders",
                "EXPLAIN PLAN_ADVICE INSERT INTO s1 SELECT * FROM orders",
                "EXPLAIN STATEMENT SET BEGIN INSERT INTO s1 SELECT * FROM orders; END",
                "SHOW TABLES",
                "SHOW CATALOGS",
                "SHOW CURRENT CATALOG",
                "SHOW CURRENT DATABASE",
                "SHOW CREATE TABLE orders",
                "SHOW CREATE VIEW v",
                "SHOW FUNCTIONS LIKE 'my%'",
                "SHOW USER FUNCTIONS",
                "SHOW DATABASES FROM cat1",
                "SHOW VIEWS",
                "SHOW COLUMNS FROM orders LIKE '%id'",
                "SHOW PARTITIONS orders",
                "SHOW MODULES",
                "SHOW FULL MODULES",
                "SHOW JOBS",
                "SHOW JARS",
                "SHOW MODELS",
                "SHOW PROCEDURES",
                "STOP JOB 'abc' WITH SAVEPOINT",
                "DESCRIBE JOB 'abc'",
                "USE CATALOG my_cat",
                "USE db1",
                "USE MODULES hive, core",
                "DESCRIBE orders",
                "DESC EXTENDED orders",
                "LOAD MODULE hive WITH ('hive-version' = '3.1.3')",
                "UNLOAD MODULE hive",
                "ADD JAR '/tmp/a.jar'",
                "REMOVE JAR '/tmp/a.jar'",
                // scripts for parseSqlList
                "SET 'a' = 'b';\nSELECT 1;\nINSERT INTO t VALUES (1)",
                "CREATE TABLE t (a INT) WITH ('connector' = 'datagen');\n"
                        + "SELECT * FROM t, LATERAL TABLE(f(a));\n"
                        + "EXECUTE STATEMENT SET BEGIN INSERT INTO s SELECT * FROM t; END;");
    }

    static Stream<String> invalidStatements() {
        return Stream.of(
                "SELECT * FORM orders",
                "SELECT * FROM",
                "SELECT * FROM orders WHERE",
                "CREATE TABLE t (a INT,) WITH ()",
                "INSERT INTO VALUES (1)",
                "SELECT a, FROM t",
                "SELECT * FROM t1 JOIN t2 ON",
                "SELECT * FROM t1,, t2",
                "SET 'a' = ",
                "SHOW DATABASES FROM a.b",
                "SELECT 'unterminated FROM t",
                "SELECT * FROM t LIMIT 'x'",
                "SELECT 1 FROM t WHERE a = `unterminated",
                "SELECT 1 /* unterminated comment",
                "SELECT \"double quoted\" FROM t",
                "SELECT 1 FROM t WHERE a = #",
                "EXPLAIN PLAN",
                "CREATE TABLE t (a INT, WATERMARK FOR a AS a, WATERMARK FOR a AS a)",
                "SELECT `" + "x".repeat(300) + "` FROM t",
                "EXECUTE STATEMENT SET BEGIN INSERT INTO s1 SELECT 1; SELECT 2; END",
                "SELECT 1; SELEC 2",
                "SELECT * FROM orders o JOIN LATERAL TABLE split(o.tags) ON TRUE",
                "SELECT * FROM orders o JOIN LATERAL TABLE(split(o.tags) ON TRUE",
                "SELECT * FROM orders o, LATERAL TABLE(f(1)) AS",
                "SELECT * FROM orders o, LATERAL (SELECT 1",
                "SELECT * FROM orders o, LATERAL UNNEST()");
    }

    /**
     * Invalid statements where Flink's parser stops at or right after LATERAL, where our grammar
     * also accepts a function name and so reports a different error (other expected tokens, or a
     * later position for {@code LATERAL a.b}). They contain no LATERAL call, so the factory hands
     * them to Flink's parser and users see Flink's error.
     */
    static Stream<String> invalidAfterLateral() {
        return Stream.of(
                "SELECT * FROM orders o,\n  LATERAL",
                "SELECT * FROM orders o JOIN LATERAL ON TRUE",
                "SELECT * FROM orders o, LATERAL SNAPSHOT",
                "SELECT * FROM orders o, LATERAL SNAPSHOT AS r",
                "SELECT * FROM orders o, LATERAL cat.db.SNAPSHOT",
                "SELECT * FROM orders o JOIN LATERAL 123 ON TRUE",
                "SELECT * FROM orders o JOIN LATERAL 'SNAPSHOT'(x) ON TRUE",
                "SELECT * FROM orders o JOIN LATERAL SELECT(1) ON TRUE");
    }

    @ParameterizedTest
    @MethodSource("validStatements")
    void sameTreeAndText(String sql) {
        assertThat(parseError(FLINK, sql))
                .as("the corpus holds valid Flink SQL")
                .isEqualTo("no error");
        SqlNodeList expected = parse(FLINK, sql);

        for (SqlNodeList actual : new SqlNodeList[] {parse(OURS, sql), parse(DISPATCHING, sql)}) {
            assertThat(tree(actual, true)).isEqualTo(tree(expected, true));
            assertThat(unparse(actual)).isEqualTo(unparse(expected));
        }
    }

    @ParameterizedTest
    @MethodSource({"invalidStatements", "invalidAfterLateral"})
    void sameErrorThroughTheFactory(String sql) {
        String expected = parseError(FLINK, sql);
        assertThat(expected).as("the corpus holds invalid Flink SQL").isNotEqualTo("no error");

        assertThat(parseError(DISPATCHING, sql)).isEqualTo(expected);
        assertThat(parseError(OURS, sql)).isNotEqualTo("no error");
    }

    @ParameterizedTest
    @MethodSource("invalidStatements")
    void sameErrorFromOurGrammar(String sql) {
        assertThat(parseError(OURS, sql)).isEqualTo(parseError(FLINK, sql));
    }

    /**
     * Flink's planner reaches the parser through {@link CalciteParser}, which tells an incomplete
     * statement ({@link SqlParserEOFException}) from a wrong one; its single-statement and script
     * paths must both behave as with Flink's parser.
     */
    @ParameterizedTest
    @MethodSource({"validStatements", "invalidStatements", "invalidAfterLateral"})
    void sameResultThroughFlinksCalciteParser(String sql) {
        CalciteParser flink = new CalciteParser(FLINK);
        CalciteParser dispatching = new CalciteParser(DISPATCHING);

        assertThat(outcome(dispatching::parseSqlList, sql))
                .isEqualTo(outcome(flink::parseSqlList, sql));
        assertThat(outcome(dispatching::parse, sql)).isEqualTo(outcome(flink::parse, sql));
    }

    private static String outcome(Function<String, SqlNode> parser, String sql) {
        try {
            SqlNode parsed = parser.apply(sql);
            return unparse(
                    parsed instanceof SqlNodeList ? (SqlNodeList) parsed : SqlNodeList.of(parsed));
        } catch (RuntimeException e) {
            return e.getClass().getName() + ": " + e.getMessage();
        }
    }
}
