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

package dev.lateralsnapshot.testutils.tables;

import java.util.List;

/**
 * The tables the examples of {@code docs/lateral-snapshot-join.md} enrich (section "Syntax"):
 * {@code rates}, a changelog of exchange rates by currency, and {@code orders}, whose currency
 * follows from the order id; and for batch mode (section "Batch mode") {@code orders_b} and {@code
 * rates_b}. Each test gives them the connector it needs.
 */
public final class RatesAndOrders {

    /** {@code rates} without its watermark: not a time attribute, so no {@code on_time}. */
    public static final String RATES_COLUMNS_WITHOUT_WATERMARK =
            "currency STRING, rate DOUBLE, update_time TIMESTAMP(3)";

    /** {@code rates}, the build side: a changelog whose watermark is its latest update time. */
    public static final String RATES_COLUMNS =
            RATES_COLUMNS_WITHOUT_WATERMARK + ", WATERMARK FOR update_time AS update_time";

    /**
     * {@code rates_pk}: {@code rates} with the currency as its primary key, so that Flink reads it
     * as an upsert changelog.
     */
    public static final String RATES_PK_COLUMNS =
            RATES_COLUMNS + ", PRIMARY KEY (currency) NOT ENFORCED";

    /**
     * The rowtime of the orders, after their other columns: the processing time of the row (in UTC
     * with {@code table.local-time-zone} UTC), with a watermark one second behind.
     */
    public static final String ORDERS_TIME_COLUMNS =
            "ts AS LOCALTIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND";

    /**
     * {@code orders}, the probe side: the currency cycles B, C, A with the order id (see {@link
     * #currency}).
     */
    public static final String ORDERS_COLUMNS =
            "order_id BIGINT, currency AS CASE order_id % 3"
                    + " WHEN 0 THEN 'A' WHEN 1 THEN 'B' ELSE 'C' END, "
                    + ORDERS_TIME_COLUMNS;

    /** {@code orders} whose currency is a column of its own, for tests that choose it. */
    public static final String ORDERS_WITH_CURRENCY_COLUMNS =
            "order_id BIGINT, currency STRING, " + ORDERS_TIME_COLUMNS;

    /** The orders with the rate of their currency, as the examples' queries select them. */
    public static final String ENRICHED_COLUMNS = "order_id BIGINT, currency STRING, rate DOUBLE";

    /**
     * The query of {@code rates_rand}: a build side with a column that a non-deterministic function
     * computes (docs/lateral-snapshot-join.md, "Planning errors").
     */
    public static final String RATES_RAND_QUERY =
            "SELECT currency, rate, RAND() AS r, update_time FROM rates";

    /** The query of {@code probe_agg}: an updating probe side, which the join rejects. */
    public static final String PROBE_AGG_QUERY =
            "SELECT currency, COUNT(*) AS c FROM orders GROUP BY currency";

    /** The options of {@code orders} in the reference: one order per second, from order 1 on. */
    public static final String ONE_ORDER_PER_SECOND =
            "'connector' = 'datagen', 'rows-per-second' = '1',"
                    + " 'fields.order_id.kind' = 'sequence', 'fields.order_id.start' = '1',"
                    + " 'fields.order_id.end' = '100000'";

    /** {@code orders_b}, the probe side in batch mode: no time attribute. */
    public static final String BATCH_ORDERS_COLUMNS = "order_id BIGINT, currency STRING";

    /** {@code rates_b}, the build side in batch mode: no time attribute, no primary key. */
    public static final String BATCH_RATES_COLUMNS = "currency STRING, rate DOUBLE";

    /** The csv lines of {@code orders_b}: orders 1 to 4, of A, B, C and A. */
    public static final List<String> BATCH_ORDERS_CSV = List.of("1,A", "2,B", "3,C", "4,A");

    /** The csv lines of {@code rates_b}: two rates of A, so that an order of A matches twice. */
    public static final List<String> BATCH_RATES_CSV = List.of("A,1.0", "B,2.0", "A,1.5");

    private RatesAndOrders() {}

    /** {@code CREATE TABLE name (columns) WITH (options)}. */
    public static String createTable(String name, String columns, String options) {
        return "CREATE TABLE " + name + " (" + columns + ") WITH (" + options + ")";
    }

    /** The currency of an order, as {@code orders} computes it. */
    public static String currency(long orderId) {
        switch ((int) (orderId % 3)) {
            case 0:
                return "A";
            case 1:
                return "B";
            default:
                return "C";
        }
    }
}
