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

package dev.lateralsnapshot.tests.runtime;

import java.util.Objects;

/**
 * A row of the {@code enriched} sink, parsed from its collected form {@code +I[12, A, 1.5]}: the
 * change kind, the order id, a currency and a rate (null when LEFT JOIN padded the order).
 */
final class EnrichedOrder {

    /** The row as collected. */
    final String row;

    final String kind;
    final long orderId;
    final String currency;
    final String rate;

    private EnrichedOrder(String row, String kind, long orderId, String currency, String rate) {
        this.row = row;
        this.kind = kind;
        this.orderId = orderId;
        this.currency = currency;
        this.rate = rate;
    }

    static EnrichedOrder parse(String row) {
        int open = row.indexOf('[');
        String[] fields = row.substring(open + 1, row.length() - 1).split(", ");
        return new EnrichedOrder(
                row,
                row.substring(0, open),
                Long.parseLong(fields[0]),
                fields[1],
                Objects.equals(fields[2], "null") ? null : fields[2]);
    }
}
