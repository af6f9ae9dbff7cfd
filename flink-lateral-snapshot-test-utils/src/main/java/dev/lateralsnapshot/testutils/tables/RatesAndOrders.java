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

/**
 * The tables the examples of {@code docs/lateral-snapshot-join.md} enrich (section "Syntax"):
 * {@code rates}, a changelog of exchange rates by currency, and {@code orders}, whose currency
 * follows from the order id. Each test gives them the connector it needs.
 */
public final class RatesAndOrders {

    /** {@code rates}, the build side: a changelog whose watermark is its latest update time. */
    public static final String RATES_COLUMNS =
            "currency STRING, rate DOUBLE, update_time TIMESTAMP(3),"
                    + " WATERMARK FOR update_time AS update_time";

    /**
     * {@code orders}, the probe side: the currency cycles B, C, A with the order id, and the
     * rowtime is the processing time of the row (in UTC with {@code table.local-time-zone} UTC).
     */
    public static final String ORDERS_COLUMNS =
            "order_id BIGINT,"
                    + " currency AS CASE order_id % 3 WHEN 0 THEN 'A' WHEN 1 THEN 'B' ELSE 'C' END,"
                    + " ts AS LOCALTIMESTAMP,"
                    + " WATERMARK FOR ts AS ts - INTERVAL '1' SECOND";

    private RatesAndOrders() {}
}
