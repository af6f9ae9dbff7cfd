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

package dev.lateralsnapshot.tests.docs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * How a {@code ```text output} block is compared with what its statement printed.
 *
 * <p>Query results are tables as Flink's SQL Client prints them in tableau mode: the first line
 * that starts with {@code |} names the columns, the next ones hold the rows; ruler lines and any
 * other line ("Received a total of ...") are not compared. Cells are compared as the SQL Client
 * renders values ({@code <NULL>} for NULL), columns included, widths and padding not.
 *
 * <p>Any other output (that of {@code EXPLAIN}) must appear in what the statement printed, line by
 * line and in order; a line {@code ...} stands for any number of lines, and a line ending with
 * {@code ...} for any line that starts with the text before it. Trailing spaces do not count.
 */
final class DocumentedOutput {

    private static final String ELLIPSIS = "...";

    private DocumentedOutput() {}

    /** The cells of the table's lines, the header first. */
    static List<List<String>> cells(List<String> block) {
        List<List<String>> rows = new ArrayList<>();
        for (String line : block) {
            String trimmed = line.trim();
            if (!trimmed.startsWith("|")) {
                continue;
            }
            if (!trimmed.endsWith("|") || trimmed.length() < 2) {
                throw new IllegalArgumentException("A table line must end with '|': " + line);
            }
            rows.add(
                    Arrays.stream(trimmed.substring(1, trimmed.length() - 1).split("\\|", -1))
                            .map(String::trim)
                            .collect(Collectors.toList()));
        }
        return rows;
    }

    /**
     * Whether the documented text appears in the actual one; null when it does, else the first
     * documented line that was not found where it should be.
     */
    static String firstMissingLine(List<String> documented, String actual) {
        List<String> actualLines =
                Arrays.stream(actual.split("\n", -1))
                        .map(String::stripTrailing)
                        .collect(Collectors.toList());
        List<List<String>> segments = segments(documented);
        int from = 0;
        for (List<String> segment : segments) {
            int at = find(segment, actualLines, from);
            if (at < 0) {
                return segment.get(longestPrefixFound(segment, actualLines, from));
            }
            from = at + segment.size();
        }
        return null;
    }

    /** The runs of documented lines between {@code ...} lines, without empty outer lines. */
    private static List<List<String>> segments(List<String> documented) {
        List<List<String>> segments = new ArrayList<>();
        List<String> segment = new ArrayList<>();
        for (String line : documented) {
            String stripped = line.stripTrailing();
            if (stripped.trim().equals(ELLIPSIS)) {
                addSegment(segments, segment);
                segment = new ArrayList<>();
            } else {
                segment.add(stripped);
            }
        }
        addSegment(segments, segment);
        return segments;
    }

    private static void addSegment(List<List<String>> segments, List<String> segment) {
        while (!segment.isEmpty() && segment.get(0).isEmpty()) {
            segment.remove(0);
        }
        while (!segment.isEmpty() && segment.get(segment.size() - 1).isEmpty()) {
            segment.remove(segment.size() - 1);
        }
        if (!segment.isEmpty()) {
            segments.add(segment);
        }
    }

    private static int find(List<String> segment, List<String> actual, int from) {
        for (int start = from; start + segment.size() <= actual.size(); start++) {
            if (matchesAt(segment, segment.size(), actual, start)) {
                return start;
            }
        }
        return -1;
    }

    /** How many lines of the segment, from its start, appear somewhere from {@code from} on. */
    private static int longestPrefixFound(List<String> segment, List<String> actual, int from) {
        int longest = 0;
        for (int start = from; start < actual.size(); start++) {
            int length = 0;
            while (length < segment.size()
                    && start + length < actual.size()
                    && matchesAt(segment, length + 1, actual, start)) {
                length++;
            }
            longest = Math.max(longest, length);
        }
        return Math.min(longest, segment.size() - 1);
    }

    private static boolean matchesAt(
            List<String> segment, int length, List<String> actual, int start) {
        for (int i = 0; i < length; i++) {
            if (!lineMatches(segment.get(i), actual.get(start + i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean lineMatches(String documented, String actual) {
        if (documented.endsWith(ELLIPSIS)) {
            return actual.startsWith(
                    documented.substring(0, documented.length() - ELLIPSIS.length()));
        }
        return documented.equals(actual);
    }

    /** Whether an error message is the documented one ({@code ...} at its end: starts with it). */
    static boolean messageMatches(String documented, String actual) {
        return actual != null && lineMatches(documented, actual.trim());
    }
}
