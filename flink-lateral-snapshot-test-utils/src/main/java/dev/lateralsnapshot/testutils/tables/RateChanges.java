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

import javax.annotation.Nullable;

import java.util.List;

/**
 * Changes of {@code rates} ({@link RatesAndOrders#RATES_COLUMNS}) as lines of Debezium JSON, and
 * the build-side files that the streaming tests drop into the directory that {@code rates} reads:
 * first the rates the join loads, then an update, a delete and an insert, which orders must see all
 * at once or not at all (docs/lateral-snapshot-join.md, "Build-side changes").
 *
 * <p>Each file ends with a row of currency Z, which no order asks for: with {@code WATERMARK FOR
 * update_time AS update_time} it moves the build watermark past the file's other changes, so that
 * they are applied.
 */
public final class RateChanges {

    /** {@code 001.json}: the initial build side, A 1.0 and B 2.0, and Z at 11:00. */
    public static final List<String> FILE_001 =
            List.of(
                    insert("A", 1.0, "2026-01-01 10:00:00"),
                    insert("B", 2.0, "2026-01-01 10:00:00"),
                    insert("Z", 0.0, "2026-01-01 11:00:00"));

    /** 2026-01-01 11:00:00 UTC: the build watermark once {@link #FILE_001} is read. */
    public static final long WATERMARK_OF_001 = 1767265200000L;

    /** {@code 002.json}: moves the build watermark on to 2026-01-02 00:00:00. */
    public static final List<String> FILE_002 = List.of(insert("Z", 0.0, "2026-01-02 00:00:00"));

    /** 2026-01-02 00:00:00 UTC: the build watermark once {@link #FILE_002} is read. */
    public static final long WATERMARK_OF_002 = 1767312000000L;

    /** {@code 003.json}: A updated to 1.5, B deleted, C inserted, and Z a day later. */
    public static final List<String> FILE_003 =
            List.of(
                    update("A", 1.0, "2026-01-01 10:00:00", 1.5, "2026-02-01 10:00:00"),
                    delete("B", 2.0, "2026-01-01 10:00:00"),
                    insert("C", 3.0, "2026-02-01 10:00:00"),
                    insert("Z", 0.0, "2026-02-02 10:00:00"));

    /** 2026-02-02 10:00:00 UTC: the build watermark once {@link #FILE_003} is read. */
    public static final long WATERMARK_OF_003 = 1770026400000L;

    private RateChanges() {}

    /** An insert of a rate; a null update time is a row without a time. */
    public static String insert(String currency, double rate, @Nullable String updateTime) {
        return Debezium.insert(row(currency, rate, updateTime));
    }

    /** An update of a currency's rate, from the old row to the new one. */
    public static String update(
            String currency, double oldRate, String oldTime, double newRate, String newTime) {
        return Debezium.update(row(currency, oldRate, oldTime), row(currency, newRate, newTime));
    }

    /** A delete of a rate. */
    public static String delete(String currency, double rate, String updateTime) {
        return Debezium.delete(row(currency, rate, updateTime));
    }

    private static String row(String currency, double rate, @Nullable String updateTime) {
        return "{\"currency\":\""
                + currency
                + "\",\"rate\":"
                + rate
                + ",\"update_time\":"
                + (updateTime == null ? "null" : "\"" + updateTime + "\"")
                + "}";
    }
}
