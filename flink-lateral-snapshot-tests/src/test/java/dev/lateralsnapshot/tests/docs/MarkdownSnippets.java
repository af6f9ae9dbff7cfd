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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The snippets of one Markdown file that {@link DocsSqlSnippetsITCase} runs, in the order of the
 * file:
 *
 * <ul>
 *   <li>every statement of every {@code ```sql} block, each ending with {@code ;} at the end of a
 *       line, with the error it is documented to fail with: a line {@code -- fails: <message>}
 *       right after it ({@code ...} at the end of the message: the actual one may go on);
 *   <li>every {@code ```text output} block: what the statement before it printed;
 *   <li>the directories of the {@code mkdir -p} lines of {@code ```bash} blocks, which the reader
 *       creates before the statements after them read them.
 * </ul>
 *
 * <p>Nothing else in a file is run. A {@code ```sql} block cannot opt out: a statement that does
 * not run, or runs differently than documented, fails the test, and so does a block of another SQL
 * dialect ({@code ```mysql}, {@code ```SQL}).
 */
final class MarkdownSnippets {

    /** A code fence: its indentation, the backticks, the info string. */
    private static final Pattern FENCE = Pattern.compile("^(\\s*)(```+)\\s*(.*)$");

    private static final Pattern EXPECTED_FAILURE = Pattern.compile("^--\\s*fails:\\s*(.+)$");

    private static final Pattern MKDIR = Pattern.compile("^mkdir\\s+-p\\s+(.+)$");

    /** Something to run or to compare, with the line of the file it starts at. */
    interface Snippet {
        int line();
    }

    /** A SQL statement without its {@code ;}; {@code expectedFailure} is null when it succeeds. */
    record Statement(int line, String sql, String expectedFailure) implements Snippet {}

    /** The contents of a {@code ```text output} block. */
    record Output(int line, List<String> lines) implements Snippet {}

    /** The directories of a {@code mkdir -p} line. */
    record Mkdir(int line, List<String> directories) implements Snippet {}

    private MarkdownSnippets() {}

    static List<Snippet> read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<Snippet> snippets = new ArrayList<>();
        int i = 0;
        while (i < lines.size()) {
            Matcher fence = FENCE.matcher(lines.get(i));
            if (!fence.matches()) {
                i++;
                continue;
            }
            String indent = fence.group(1);
            String ticks = fence.group(2);
            List<String> info = Arrays.asList(fence.group(3).trim().split("\\s+"));
            int firstLine = i + 2;
            List<String> body = new ArrayList<>();
            i++;
            while (i < lines.size() && !lines.get(i).trim().equals(ticks)) {
                String line = lines.get(i);
                body.add(line.startsWith(indent) ? line.substring(indent.length()) : line.trim());
                i++;
            }
            if (i == lines.size()) {
                throw new IllegalArgumentException(
                        file + ":" + (firstLine - 1) + ": the code block is not closed");
            }
            i++;
            String language = info.get(0);
            if (!language.equals("sql") && language.toLowerCase(Locale.ROOT).contains("sql")) {
                throw new IllegalArgumentException(
                        file
                                + ":"
                                + (firstLine - 1)
                                + ": SQL goes into ```sql blocks, which are run; not into ```"
                                + language);
            }
            switch (language) {
                case "sql":
                    snippets.addAll(statements(file, firstLine, body));
                    break;
                case "text":
                    if (info.contains("output")) {
                        snippets.add(new Output(firstLine, body));
                    }
                    break;
                case "bash":
                    snippets.addAll(mkdirs(firstLine, body));
                    break;
                default:
                    break;
            }
        }
        return snippets;
    }

    /** The statements of a {@code ```sql} block; every one must end with {@code ;}. */
    private static List<Statement> statements(Path file, int firstLine, List<String> body) {
        List<Statement> statements = new ArrayList<>();
        StringBuilder sql = new StringBuilder();
        int start = -1;
        for (int n = 0; n < body.size(); n++) {
            String line = body.get(n);
            String trimmed = line.trim();
            if (trimmed.startsWith("--")) {
                Matcher failure = EXPECTED_FAILURE.matcher(trimmed);
                if (!failure.matches()) {
                    continue;
                }
                int last = statements.size() - 1;
                if (sql.length() > 0 || last < 0 || statements.get(last).expectedFailure != null) {
                    throw new IllegalArgumentException(
                            file
                                    + ":"
                                    + (firstLine + n)
                                    + ": '-- fails:' must follow the ';' of a statement");
                }
                Statement failing = statements.get(last);
                statements.set(
                        last, new Statement(failing.line, failing.sql, failure.group(1).trim()));
                continue;
            }
            if (trimmed.isEmpty() && sql.length() == 0) {
                continue;
            }
            if (sql.length() == 0) {
                start = firstLine + n;
            }
            sql.append(line).append('\n');
            if (trimmed.endsWith(";")) {
                String text = sql.toString().trim();
                statements.add(new Statement(start, text.substring(0, text.length() - 1), null));
                sql.setLength(0);
            }
        }
        if (sql.toString().trim().length() > 0) {
            throw new IllegalArgumentException(
                    file + ":" + start + ": the statement does not end with ';'");
        }
        return statements;
    }

    private static List<Mkdir> mkdirs(int firstLine, List<String> body) {
        List<Mkdir> mkdirs = new ArrayList<>();
        for (int n = 0; n < body.size(); n++) {
            Matcher mkdir = MKDIR.matcher(body.get(n).trim());
            if (mkdir.matches()) {
                mkdirs.add(
                        new Mkdir(
                                firstLine + n, Arrays.asList(mkdir.group(1).trim().split("\\s+"))));
            }
        }
        return mkdirs;
    }
}
