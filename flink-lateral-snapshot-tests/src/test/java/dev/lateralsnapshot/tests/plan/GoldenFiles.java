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

package dev.lateralsnapshot.tests.plan;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Golden files: expected test output kept in {@code src/test/resources/plans/<test
 * class>/<case>.txt}.
 *
 * <p>A mismatch fails with a line diff. To accept new output after an intended change, run the test
 * with the system property {@value #REGENERATE_PROPERTY}, which rewrites the files instead of
 * comparing, and review the change in version control:
 *
 * <pre>{@code
 * mvn -B -pl flink-lateral-snapshot-tests -am test -Dtest='*PlanTest' \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dplans.regenerate=true
 * }</pre>
 */
final class GoldenFiles {

    static final String REGENERATE_PROPERTY = "plans.regenerate";

    /** Surefire runs tests in the module directory; so do IDEs by default. */
    private static final Path ROOT = Paths.get("src", "test", "resources", "plans");

    private GoldenFiles() {}

    /** Compares the actual text with the golden file of a case, or rewrites it when asked to. */
    static void assertMatches(Class<?> testClass, String caseName, String actual)
            throws IOException {
        Path file = ROOT.resolve(testClass.getSimpleName()).resolve(caseName + ".txt");
        if (Boolean.getBoolean(REGENERATE_PROPERTY)) {
            Files.createDirectories(file.getParent());
            Files.writeString(file, actual, StandardCharsets.UTF_8);
            return;
        }
        if (!Files.exists(file)) {
            throw new AssertionError(
                    "No golden file "
                            + file.toAbsolutePath()
                            + ". Create it by running the test with -D"
                            + REGENERATE_PROPERTY
                            + "=true. The output was:\n"
                            + actual);
        }
        String expected = Files.readString(file, StandardCharsets.UTF_8);
        if (!expected.equals(actual)) {
            throw new AssertionError(
                    "The output differs from the golden file "
                            + file
                            + " (- expected, + actual). If the change is intended, run the test"
                            + " with -D"
                            + REGENERATE_PROPERTY
                            + "=true and review the new file.\n"
                            + diff(lines(expected), lines(actual)));
        }
    }

    private static List<String> lines(String text) {
        return Arrays.asList(text.split("\n", -1));
    }

    /** Unchanged lines shown around a change. */
    private static final int CONTEXT = 3;

    /**
     * A line diff from the longest common subsequence (plans are short enough for O(n*m)), with a
     * few unchanged lines around each change.
     */
    static String diff(List<String> expected, List<String> actual) {
        int[][] common = new int[expected.size() + 1][actual.size() + 1];
        for (int i = expected.size() - 1; i >= 0; i--) {
            for (int j = actual.size() - 1; j >= 0; j--) {
                common[i][j] =
                        expected.get(i).equals(actual.get(j))
                                ? common[i + 1][j + 1] + 1
                                : Math.max(common[i + 1][j], common[i][j + 1]);
            }
        }
        List<String> diff = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < expected.size() || j < actual.size()) {
            if (i < expected.size() && j < actual.size() && expected.get(i).equals(actual.get(j))) {
                diff.add("  " + expected.get(i++));
                j++;
            } else if (i < expected.size()
                    && (j == actual.size() || common[i + 1][j] >= common[i][j + 1])) {
                diff.add("- " + expected.get(i++));
            } else {
                diff.add("+ " + actual.get(j++));
            }
        }
        StringBuilder shown = new StringBuilder();
        int lastShown = -1;
        for (int line = 0; line < diff.size(); line++) {
            if (isNearChange(diff, line)) {
                if (lastShown >= 0 && line > lastShown + 1) {
                    shown.append("  ...\n");
                }
                shown.append(diff.get(line)).append('\n');
                lastShown = line;
            }
        }
        return shown.toString();
    }

    private static boolean isNearChange(List<String> diff, int line) {
        for (int other = Math.max(0, line - CONTEXT);
                other <= Math.min(diff.size() - 1, line + CONTEXT);
                other++) {
            if (!diff.get(other).startsWith("  ")) {
                return true;
            }
        }
        return false;
    }
}
