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

package dev.lateralsnapshot.benchmark.enrichment;

/** The joins compared, each an INSERT INTO the measuring sink over the same tables. */
enum Contender {
    /** Pass-through with the join's hash exchange (the ceiling). */
    P0("P0 pass-through", true),
    /** Processing-time temporal table function join. */
    P1("P1 proctime TTF", true),
    /** Event-time temporal join FOR SYSTEM_TIME AS OF. */
    P2("P2 event-time temporal", true),
    /** Regular LEFT join. */
    P3("P3 regular LEFT", true),
    /** Lookup join, full cache ('values' test connector). */
    P4("P4 lookup FULL cache", false),
    /** LATERAL SNAPSHOT, build side keyed by the join key. */
    P5U("P5 SNAPSHOT upsert", true),
    /** LATERAL SNAPSHOT as P5U, with a state TTL of one hour: no key expires within a run. */
    P5UT("P5 SNAPSHOT upsert TTL", true),
    /** LATERAL SNAPSHOT, build side without a key. */
    P5M("P5 SNAPSHOT multiset", true),
    /**
     * LATERAL SNAPSHOT over an upsert source (+I, +U) keyed by the join key: the join reads the
     * source's upserts itself.
     */
    P5S("P5 SNAPSHOT upsert source", true),
    /**
     * P5S's statement with Flink's ChangelogNormalize kept in front of the join (forced with {@code
     * table.exec.source.cdc-events-duplicate}; Flink keeps the same operator for an upsert source
     * whose {@code on_time} is a metadata column): the table is held twice.
     */
    P5SN("P5 SNAPSHOT upsert source, normalized", true),
    /** P5U's statement with the build side broadcast to every subtask of the join. */
    P5UB("P5 SNAPSHOT upsert broadcast", true),
    /**
     * LATERAL SNAPSHOT on a range condition over 1,000 bands, hashed: the join at parallelism 1.
     */
    P5R("P5 SNAPSHOT range", true),
    /** P5R's statement with the build side broadcast: the join at the probe side's parallelism. */
    P5RB("P5 SNAPSHOT range broadcast", true);

    final String label;

    /** False when the backend makes no difference (no keyed state): runs on the heap only. */
    final boolean usesState;

    Contender(String label, boolean usesState) {
        this.label = label;
        this.usesState = usesState;
    }

    boolean isSnapshot() {
        return this == P5U
                || this == P5UT
                || this == P5M
                || this == P5S
                || this == P5SN
                || broadcast()
                || range();
    }

    /**
     * Whether the statement emits a row for every probe row, whenever its build row arrives: the
     * pass-through and the LEFT join. The others drop a probe row that finds no build row.
     */
    boolean emitsEveryProbeRow() {
        return this == P0 || this == P3;
    }

    /** Whether the statement runs with {@code build-distribution} = {@code broadcast}. */
    boolean broadcast() {
        return this == P5UB || this == P5RB;
    }

    static final String SELECT = "SELECT o.seq, o.k, o.amount, r.rate, r.name, o.src_nanos ";

    /**
     * The sink rows per probe row of this contender's inner join: the keys' hit rate, or 1 for the
     * range join, in which every probe amount lies in one band.
     */
    double hitsPerProbeRow(ProbeKeys keys) {
        return range() ? 1.0 : keys.hitRate;
    }

    /** Whether the statement joins on the range condition over the bands. */
    boolean range() {
        return this == P5R || this == P5RB;
    }

    /** The statement of this contender; the tables are those of {@link #ddl}. */
    String insert() {
        switch (this) {
            case P0:
                return "INSERT INTO sink_keyed SELECT seq, k, amount, src_nanos FROM orders";
            case P1:
                return "INSERT INTO sink "
                        + SELECT
                        + "FROM orders AS o, LATERAL TABLE (Rates(o.pt)) AS r WHERE o.k = r.k";
            case P2:
                return "INSERT INTO sink "
                        + SELECT
                        + "FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r"
                        + " ON o.k = r.k";
            case P3:
                return "INSERT INTO sink "
                        + SELECT
                        + "FROM orders AS o LEFT JOIN rates AS r ON o.k = r.k";
            case P4:
                return "INSERT INTO sink "
                        + SELECT
                        + "FROM orders AS o JOIN rates_lookup FOR SYSTEM_TIME AS OF o.pt AS r"
                        + " ON o.k = r.k";
            case P5U:
            case P5UB:
                return "INSERT INTO sink "
                        + SELECT
                        + "FROM orders AS o JOIN LATERAL SNAPSHOT("
                        + "input => TABLE rates, on_time => DESCRIPTOR(updated_at)) AS r"
                        + " ON o.k = r.k";
            case P5S:
            case P5SN:
                return "INSERT INTO sink "
                        + SELECT
                        + "FROM orders AS o JOIN LATERAL SNAPSHOT("
                        + "input => TABLE rates_upserts, on_time => DESCRIPTOR(updated_at)) AS r"
                        + " ON o.k = r.k";
            case P5UT:
                return "INSERT INTO sink "
                        + SELECT
                        + "FROM orders AS o JOIN LATERAL SNAPSHOT("
                        + "input => TABLE rates, on_time => DESCRIPTOR(updated_at),"
                        + " state_ttl => INTERVAL '1' HOUR) AS r"
                        + " ON o.k = r.k";
            case P5M:
                return "INSERT INTO sink "
                        + SELECT
                        + "FROM orders AS o JOIN LATERAL SNAPSHOT("
                        + "input => TABLE rates_nopk, on_time => DESCRIPTOR(updated_at)) AS r"
                        + " ON o.k = r.k";
            case P5R:
            case P5RB:
                return "INSERT INTO sink "
                        + SELECT
                        + "FROM orders AS o JOIN LATERAL SNAPSHOT("
                        + "input => TABLE bands, on_time => DESCRIPTOR(updated_at)) AS r"
                        + " ON o.amount BETWEEN r.lo AND r.hi";
            default:
                throw new AssertionError(this);
        }
    }

    /** The tables every contender sees; only those a statement reads become sources. */
    static String[] ddl(String run, String lookupDataId) {
        String with = " WITH ('connector' = 'bench-%s', 'run' = '" + run + "')";
        String build =
                "k BIGINT, rate DOUBLE, name STRING, updated_at TIMESTAMP_LTZ(3),"
                        + " WATERMARK FOR updated_at AS updated_at";
        return new String[] {
            "CREATE TEMPORARY TABLE orders (seq BIGINT, k BIGINT, amount DOUBLE,"
                    + " ts TIMESTAMP_LTZ(3), src_nanos BIGINT, pt AS PROCTIME(),"
                    + " WATERMARK FOR ts AS ts)"
                    + String.format(with, "probe"),
            "CREATE TEMPORARY TABLE rates ("
                    + build
                    + ", PRIMARY KEY (k) NOT ENFORCED)"
                    + String.format(with, "build"),
            "CREATE TEMPORARY TABLE rates_nopk (" + build + ")" + String.format(with, "build"),
            "CREATE TEMPORARY TABLE rates_upserts ("
                    + build
                    + ", PRIMARY KEY (k) NOT ENFORCED)"
                    + String.format(with, "build-upsert"),
            // Build key k is the band [k / 10, (10 k + 9) / 100] of the probe amounts (seq %
            // 10,000)
            // / 100: with the 1,000 keys of a "-1k" scenario every probe row lies in one band.
            // Both bounds and the amounts are the nearest doubles of decimals with two places, so
            // comparing them is comparing the decimals.
            "CREATE TEMPORARY TABLE bands ("
                    + build
                    + ", lo AS CAST(k AS DOUBLE) / 10, hi AS CAST(k * 10 + 9 AS DOUBLE) / 100,"
                    + " PRIMARY KEY (k) NOT ENFORCED)"
                    + String.format(with, "build"),
            "CREATE TEMPORARY TABLE rates_pt ("
                    + build
                    + ", pt AS PROCTIME())"
                    + String.format(with, "build"),
            "CREATE TEMPORARY TABLE rates_lookup (k BIGINT, rate DOUBLE, name STRING,"
                    + " updated_at TIMESTAMP_LTZ(3), PRIMARY KEY (k) NOT ENFORCED) WITH ("
                    + "'connector' = 'values', 'data-id' = '"
                    + lookupDataId
                    + "', 'lookup.cache' = 'FULL',"
                    + " 'lookup.full-cache.periodic-reload.interval' = '1 h')",
            "CREATE TEMPORARY TABLE sink (seq BIGINT, k BIGINT, amount DOUBLE, rate DOUBLE,"
                    + " name STRING, src_nanos BIGINT)"
                    + String.format(with, "sink"),
            "CREATE TEMPORARY TABLE sink_keyed (seq BIGINT, k BIGINT, amount DOUBLE,"
                    + " src_nanos BIGINT, PRIMARY KEY (k) NOT ENFORCED)"
                    + String.format(with, "sink")
        };
    }
}
