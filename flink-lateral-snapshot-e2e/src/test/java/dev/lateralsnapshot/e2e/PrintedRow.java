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

package dev.lateralsnapshot.e2e;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One row of the {@code out_print} table of {@link ReleaseTestingPlan} as Flink's {@code print}
 * sink writes it to a TaskManager's stdout, for example {@code +I[4, A, 1.0]}, or {@code 2> +I[5,
 * C, null]} when the sink runs with more than one subtask.
 */
record PrintedRow(String kind, long orderId, String currency, Double rate) {

    private static final Pattern ROW_START = Pattern.compile("^(?:\\d+> )?[+-][IUD]\\[");
    private static final Pattern ROW =
            Pattern.compile("^(?:\\d+> )?([+-][IUD])\\[(-?\\d+), (\\w+), ([^\\]]+)\\]$");

    /**
     * Whether a line of a TaskManager's {@code .out} file is a row of the sink. The file also takes
     * what the JVM and libraries write to stderr.
     */
    static boolean isRow(String line) {
        return ROW_START.matcher(line).find();
    }

    /** Parses a row of the sink; fails on anything else that looks like one. */
    static PrintedRow parse(String line) {
        Matcher matcher = ROW.matcher(line);
        if (!matcher.matches()) {
            throw new AssertionError("not a row of out_print: " + line);
        }
        String rate = matcher.group(4);
        return new PrintedRow(
                matcher.group(1),
                Long.parseLong(matcher.group(2)),
                matcher.group(3),
                rate.equals("null") ? null : Double.valueOf(rate));
    }

    @Override
    public String toString() {
        return kind + "[" + orderId + ", " + currency + ", " + rate + "]";
    }
}
