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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Build step that turns Flink's own {@code Parser.jj} into the grammar of our parser.
 *
 * <p>Flink's generated parser cannot be extended at run time (its production methods are final), so
 * the planner module generates a second parser from exactly the same grammar, with one added
 * alternative in {@code TableRef3}: {@code LATERAL f(args)}, parsed like {@code LATERAL
 * TABLE(f(args))}. Everything else is a mechanical rename so both parsers can live side by side:
 *
 * <ul>
 *   <li>the parser class (and with it the token manager and constants) and its package;
 *   <li>Guava imports, to the package that {@code flink-table-planner} relocated Guava to;
 *   <li>Flink's {@code ParseException} and {@code Token} are imported, because Flink's SQL node
 *       constructors declare Flink's {@code ParseException}; sharing both classes also keeps error
 *       handling identical to Flink's parser. ({@code TokenMgrError} cannot be shared: the token
 *       manager uses constants of it that are package-private.)
 * </ul>
 *
 * <p>Every edit is anchored on text that must occur exactly once. When a Flink upgrade moves an
 * anchor, the build fails here with a message naming it, instead of producing a parser that
 * silently differs from Flink's.
 *
 * <p>Run as a single-file program: {@code java PatchParserGrammar.java <Flink Parser.jj>
 * <fragment.jj> <output.jj> <package> <parser class> <relocated Guava package>}.
 */
public final class PatchParserGrammar {

    private static final String FLINK_PACKAGE = "org.apache.flink.sql.parser.impl";
    private static final String FLINK_PARSER = "FlinkSqlParserImpl";

    public static void main(String[] args) throws IOException {
        if (args.length != 6) {
            fail(
                    "usage: PatchParserGrammar <Parser.jj> <fragment.jj> <output.jj> <package>"
                            + " <parser class> <relocated Guava package>");
        }
        Path flinkGrammar = Path.of(args[0]);
        Path fragment = Path.of(args[1]);
        Path output = Path.of(args[2]);
        String packageName = args[3];
        String parserClass = args[4];
        String guavaPackage = args[5];
        try {
            String grammar = read(flinkGrammar);
            grammar = renameParser(grammar, parserClass);
            grammar = movePackage(grammar, packageName);
            grammar = relocateGuava(grammar, guavaPackage);
            grammar = insertLateralCall(grammar, stripLicenseHeader(read(fragment)));
            writeIfChanged(output, grammar);
        } catch (AnchorException e) {
            fail(
                    "cannot patch "
                            + flinkGrammar
                            + ": "
                            + e.getMessage()
                            + ". Flink's grammar changed; adapt"
                            + " src/build/PatchParserGrammar.java.");
        }
    }

    private static String renameParser(String grammar, String parserClass) {
        requireOnce(grammar, Pattern.quote("PARSER_BEGIN(" + FLINK_PARSER + ")"), "PARSER_BEGIN");
        requireOnce(grammar, Pattern.quote("PARSER_END(" + FLINK_PARSER + ")"), "PARSER_END");
        requireOnce(
                grammar,
                Pattern.quote("public class " + FLINK_PARSER + " extends SqlAbstractParserImpl"),
                "the parser class declaration");
        requireOnce(
                grammar,
                Pattern.quote("public static final SqlParserImplFactory FACTORY"),
                "the parser factory");
        // A prefix match also renames the token manager and constants JavaCC derives from it.
        String renamed =
                grammar.replaceAll("\\b" + FLINK_PARSER, Matcher.quoteReplacement(parserClass));
        requireAbsent(renamed, FLINK_PARSER);
        return renamed;
    }

    private static String movePackage(String grammar, String packageName) {
        String packageLine = "package " + packageName + ";";
        String moved =
                replaceOnce(
                        grammar,
                        "(?m)^package " + Pattern.quote(FLINK_PACKAGE) + ";$",
                        packageLine,
                        "the package declaration");
        // Nothing else of Flink's parser package may leak in, or the two parsers would mix.
        requireAbsent(moved, FLINK_PACKAGE);
        // JavaCC copies the parser's imports into the token manager, so these cover both.
        return moved.replace(
                packageLine,
                packageLine
                        + "\n\nimport "
                        + FLINK_PACKAGE
                        + ".ParseException;\nimport "
                        + FLINK_PACKAGE
                        + ".Token;");
    }

    private static String relocateGuava(String grammar, String guavaPackage) {
        String importPrefix = "(?m)^import com\\.google\\.common\\.";
        if (count(grammar, importPrefix) == 0) {
            throw new AnchorException("no Guava import found");
        }
        String relocated =
                grammar.replaceAll(
                        importPrefix, Matcher.quoteReplacement("import " + guavaPackage + "."));
        if (count(relocated, "(?<![\\w.])com\\.google\\.common\\.") != 0) {
            throw new AnchorException("a Guava reference outside the imports is left unrelocated");
        }
        return relocated;
    }

    /**
     * Inserts the fragment as a new alternative of {@code TableRef3}, directly before {@code [
     * <LATERAL> ] TableFunctionCall()}: it must be tried first, and it only commits on {@code
     * LATERAL <identifier> (} or {@code LATERAL <identifier> .}, which that alternative rejects.
     */
    private static String insertLateralCall(String grammar, String alternative) {
        // The production: its header, then a declaration block and a body, each closed by a
        // brace in the first column.
        String production =
                "(?s)\\nSqlNode TableRef3\\(ExprContext exprContext, boolean lateral\\) :"
                        + "\\n\\{\\n.*?\\n}\\n\\{\\n.*?\\n}\\n";
        Matcher tableRef3 = findOnce(grammar, production, "the production TableRef3");
        String body = tableRef3.group();
        Matcher lateralTable =
                findOnce(
                        body,
                        "(?m)^[ \\t]*\\[\\s*<LATERAL>\\s*\\{\\s*lateral\\s*=\\s*true;\\s*}\\s*]\\s*"
                                + "tableRef\\s*=\\s*TableFunctionCall\\(\\)\\s*"
                                + "tableRef\\s*=\\s*addLateral\\(tableRef,\\s*lateral\\)",
                        "the alternative '[ <LATERAL> ] TableFunctionCall()' in TableRef3");
        String patched =
                body.substring(0, lateralTable.start())
                        + alternative
                        + "    |\n"
                        + body.substring(lateralTable.start());
        return grammar.substring(0, tableRef3.start())
                + patched
                + grammar.substring(tableRef3.end());
    }

    /** The fragment's license header belongs to the fragment file, not inside TableRef3. */
    private static String stripLicenseHeader(String fragment) {
        String alternative = fragment.replaceFirst("(?s)^/\\*.*?\\*/\\n+", "");
        return alternative.endsWith("\n") ? alternative : alternative + "\n";
    }

    private static String replaceOnce(
            String text, String regex, String replacement, String description) {
        requireOnce(text, regex, description);
        return text.replaceFirst(regex, Matcher.quoteReplacement(replacement));
    }

    private static Matcher findOnce(String text, String regex, String description) {
        requireOnce(text, regex, description);
        Matcher matcher = Pattern.compile(regex).matcher(text);
        matcher.find();
        return matcher;
    }

    private static void requireOnce(String text, String regex, String description) {
        int matches = count(text, regex);
        if (matches != 1) {
            throw new AnchorException(
                    "expected "
                            + description
                            + " exactly once, found it "
                            + matches
                            + " times"
                            + " (pattern /"
                            + regex
                            + "/)");
        }
    }

    private static void requireAbsent(String text, String literal) {
        if (text.contains(literal)) {
            throw new AnchorException("'" + literal + "' is left after the rewrite");
        }
    }

    private static int count(String text, String regex) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        int matches = 0;
        while (matcher.find()) {
            matches++;
        }
        return matches;
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8).replace("\r\n", "\n");
    }

    /** An unchanged grammar keeps its timestamp, so JavaCC's staleness check can skip the run. */
    private static void writeIfChanged(Path output, String grammar) throws IOException {
        byte[] bytes = grammar.getBytes(StandardCharsets.UTF_8);
        if (Files.exists(output) && Arrays.equals(bytes, Files.readAllBytes(output))) {
            return;
        }
        Files.createDirectories(output.getParent());
        Files.write(output, bytes);
    }

    private static void fail(String message) {
        System.err.println("[PatchParserGrammar] " + message);
        System.exit(1);
    }

    /** An anchor that did not match exactly once. */
    private static final class AnchorException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        AnchorException(String message) {
            super(message);
        }
    }
}
