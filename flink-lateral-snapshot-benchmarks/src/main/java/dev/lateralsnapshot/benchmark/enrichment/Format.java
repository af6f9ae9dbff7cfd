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

import java.util.Locale;

/**
 * How the enrichment benchmark shows a number or a table: in docs/benchmarks.md, in the tables it
 * prints at the end of a run and in the line of every run. It lives in one place so that a rate, a
 * latency or a ratio reads the same wherever it appears. A number keeps no more digits than the
 * noise of a shared machine leaves meaningful, and reads {@code n/a} where nothing was measured
 * (NaN, or a negative size).
 */
final class Format {

    private Format() {}

    static String bytes(long bytes) {
        if (bytes < 0) {
            return "n/a";
        }
        if (bytes < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.0f KiB", bytes / 1024.0);
        }
        if (bytes < 1024L * 1024 * 1024) {
            return String.format(Locale.ROOT, "%.0f MiB", bytes / 1024.0 / 1024);
        }
        return String.format(Locale.ROOT, "%.2f GiB", bytes / 1024.0 / 1024 / 1024);
    }

    /** A latency, measured in microseconds, in milliseconds. */
    static String millis(double micros) {
        if (Double.isNaN(micros)) {
            return "n/a";
        }
        if (micros < 10_000) {
            return String.format(Locale.ROOT, "%.1f ms", micros / 1000);
        }
        return String.format(Locale.ROOT, "%.0f ms", micros / 1000);
    }

    /** A rate in rows per second. */
    static String rows(double rate) {
        if (Double.isNaN(rate)) {
            return "n/a";
        }
        if (rate >= 1e6) {
            return String.format(Locale.ROOT, "%.2fM", rate / 1e6);
        }
        return String.format(Locale.ROOT, "%.0fk", rate / 1e3);
    }

    static String ratio(double ratio) {
        if (Double.isNaN(ratio)) {
            return "n/a";
        }
        return ratio >= 10
                ? String.format(Locale.ROOT, "%.0fx", ratio)
                : String.format(Locale.ROOT, "%.2fx", ratio);
    }

    /**
     * The first two lines of a markdown table: the names of the columns, then their alignment, one
     * character a column in {@code alignment}: {@code l} for text, {@code r} for a number, which
     * reads best aligned on its last digit.
     */
    static void header(StringBuilder md, String alignment, String... names) {
        if (alignment.length() != names.length) {
            throw new IllegalArgumentException(
                    "Alignment " + alignment + " for " + names.length + " columns");
        }
        row(md, (Object[]) names);
        md.append('|');
        for (char column : alignment.toCharArray()) {
            switch (column) {
                case 'l':
                    md.append("---|");
                    break;
                case 'r':
                    md.append("---:|");
                    break;
                default:
                    throw new IllegalArgumentException("Alignment " + column + ": l or r");
            }
        }
        md.append('\n');
    }

    /** A line of a markdown table, each cell as {@link String#valueOf} shows it. */
    static void row(StringBuilder md, Object... cells) {
        md.append("| ");
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                md.append(" | ");
            }
            md.append(cells[i]);
        }
        md.append(" |\n");
    }
}
