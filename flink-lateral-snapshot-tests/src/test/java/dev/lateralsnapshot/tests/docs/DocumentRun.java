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

import dev.lateralsnapshot.planner.delegation.LateralSnapshotPlannerFactory;
import dev.lateralsnapshot.tests.docs.MarkdownSnippets.Mkdir;
import dev.lateralsnapshot.tests.docs.MarkdownSnippets.Output;
import dev.lateralsnapshot.tests.docs.MarkdownSnippets.Snippet;
import dev.lateralsnapshot.tests.docs.MarkdownSnippets.Statement;
import dev.lateralsnapshot.tests.runtime.Await;
import dev.lateralsnapshot.testutils.environments.PlannerFactoryEnvironments;
import dev.lateralsnapshot.testutils.metrics.JoinMetricsReporter;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.internal.TableResultInternal;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.GenericInMemoryCatalog;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;

import javax.annotation.Nullable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_BUILD_SIDE_CHANGES_APPLIED;

/**
 * Runs the snippets of one document, in order, in one session, as a reader would paste them into
 * Flink's SQL Client connected to the local cluster of {@code flink-lateral-snapshot-e2e}:
 *
 * <ul>
 *   <li>{@code SET} and {@code RESET} change the session's options; setting {@code
 *       execution.runtime-mode} switches between streaming and batch, as in the SQL Client. The
 *       session starts with the cluster's {@code parallelism.default} of 1.
 *   <li>A query ({@code SELECT}, {@code WITH}) with an output block after it, before the next
 *       query, runs: the output blocks up to the next query take its rows, and it keeps running
 *       while the statements between them run. A query without an output block is planned only
 *       ({@code EXPLAIN}), and so is an {@code INSERT} that does not insert {@code VALUES}. An
 *       {@code EXECUTE PLAN} loads and explains its plan, without running it.
 *   <li>Every other statement runs ({@code INSERT ... VALUES} until its job ends). While a query
 *       runs, an insert into its build table waits until the join has applied a build change more
 *       than before, as the tutorial asks the reader to wait.
 *   <li>{@code EXPLAIN} prints its plan, which an output block after it may show.
 * </ul>
 *
 * <p>Paths under {@link #DOCUMENTED_ROOT} in statements and {@code mkdir -p} lines point into a
 * directory of this run instead. Tables and views live in one catalog for the whole document.
 */
final class DocumentRun implements AutoCloseable {

    /** The directory the documents keep their files in. */
    static final String DOCUMENTED_ROOT = "/tmp/lateral-snapshot/";

    private static final Duration ROWS_TIMEOUT = Duration.ofSeconds(60);

    /** How long a query gets to end by itself after its last output block. */
    private static final Duration END_GRACE = Duration.ofSeconds(2);

    private static final String CATALOG = "default_catalog";

    private static final String DATABASE = "default_database";

    private static final Pattern SET = Pattern.compile("(?is)SET\\s+'([^']+)'\\s*=\\s*'([^']*)'");
    private static final Pattern RESET_KEY = Pattern.compile("(?is)RESET\\s+'([^']+)'");
    private static final Pattern RESET_ALL = Pattern.compile("(?is)RESET");
    private static final Pattern INSERT_VALUES =
            Pattern.compile("(?is)INSERT\\s+INTO\\s+([\\w.`]+)\\s*(\\([^)]*\\)\\s*)?VALUES\\b.*");
    private static final Pattern EXECUTE_PLAN =
            Pattern.compile("(?is)EXECUTE\\s+PLAN\\s+'([^']+)'");
    private static final Pattern BUILD_TABLE =
            Pattern.compile("(?is).*\\binput\\s*=>\\s*TABLE\\s+([\\w.`]+).*");

    private final Path file;
    private final Path root;
    private final Catalog catalog = new GenericInMemoryCatalog(CATALOG, DATABASE);
    private final Map<String, String> options = new HashMap<>();
    private final Map<Map<String, String>, TableEnvironment> environments = new HashMap<>();

    /** The query whose rows the next output blocks show; null when none runs. */
    @Nullable private RunningQuery running;

    /** The plan of the EXPLAIN statement just run, which the next output block shows. */
    @Nullable private String explained;

    DocumentRun(Path file, Path root) {
        this.file = file;
        this.root = root;
    }

    void run() throws Exception {
        List<Snippet> snippets = MarkdownSnippets.read(file);
        for (int i = 0; i < snippets.size(); i++) {
            Snippet snippet = snippets.get(i);
            try {
                if (snippet instanceof Mkdir) {
                    for (String directory : ((Mkdir) snippet).directories()) {
                        Files.createDirectories(Path.of(localPath(directory)));
                    }
                } else if (snippet instanceof Statement) {
                    run((Statement) snippet, hasOutput(snippets, i));
                } else {
                    compare((Output) snippet);
                }
            } catch (Throwable t) {
                throw new AssertionError(
                        file.getFileName() + ":" + snippet.line() + ": " + t.getMessage(), t);
            }
        }
        endRunningQuery();
    }

    // ---- statements ----

    private void run(Statement statement, boolean hasOutput) throws Exception {
        String sql = localPaths(statement.sql());
        String keyword = keyword(statement);
        boolean query = keyword.equals("SELECT") || keyword.equals("WITH");
        explained = null;
        Throwable failure = null;
        try {
            if (query && hasOutput) {
                endRunningQuery();
                running = startQuery(sql);
            } else if (query || (keyword.equals("INSERT") && !isInsertValues(sql))) {
                environment().explainSql(sql);
            } else if (keyword.equals("EXPLAIN")) {
                String plan = explain(sql);
                explained = hasOutput ? plan : null;
            } else if (keyword.equals("SET") || keyword.equals("RESET")) {
                changeOptions(sql);
            } else if (EXECUTE_PLAN.matcher(sql).matches()) {
                explainPlan(sql);
            } else {
                execute(sql);
            }
        } catch (Exception e) {
            failure = e;
        }
        checkFailure(statement, failure);
    }

    private static String keyword(Statement statement) {
        return statement.sql().split("\\s+", 2)[0].toUpperCase(Locale.ROOT);
    }

    private static void checkFailure(Statement statement, @Nullable Throwable failure) {
        String expected = statement.expectedFailure();
        if (expected == null) {
            if (failure != null) {
                throw new AssertionError("The statement failed:\n" + statement.sql(), failure);
            }
            return;
        }
        if (failure == null) {
            throw new AssertionError(
                    "The statement ran, but is documented to fail with '"
                            + expected
                            + "':\n"
                            + statement.sql());
        }
        boolean documented =
                ExceptionUtils.findThrowable(failure, t -> mentions(t, expected)).isPresent();
        if (!documented) {
            throw new AssertionError(
                    "The statement failed, but not with the documented '" + expected + "'",
                    failure);
        }
    }

    /** Whether the exception or one it suppresses has the documented message. */
    private static boolean mentions(Throwable t, String expected) {
        return DocumentedOutput.messageMatches(expected, t.getMessage())
                || Arrays.stream(t.getSuppressed())
                        .anyMatch(s -> DocumentedOutput.messageMatches(expected, s.getMessage()));
    }

    /**
     * Whether an output block shows what the statement prints: for EXPLAIN the next snippet, for a
     * query any output block before the next query or EXPLAIN.
     */
    private static boolean hasOutput(List<Snippet> snippets, int index) {
        boolean explain = keyword((Statement) snippets.get(index)).equals("EXPLAIN");
        for (int i = index + 1; i < snippets.size(); i++) {
            Snippet next = snippets.get(i);
            if (next instanceof Output) {
                return true;
            }
            if (next instanceof Statement
                    && (explain
                            || List.of("SELECT", "WITH", "EXPLAIN")
                                    .contains(keyword((Statement) next)))) {
                return false;
            }
        }
        return false;
    }

    private RunningQuery startQuery(String sql) {
        TableResultInternal result = (TableResultInternal) environment().executeSql(sql);
        return new RunningQuery(sql, isStreaming(), result);
    }

    private String explain(String sql) throws Exception {
        try (CloseableIterator<Row> rows = environment().executeSql(sql).collect()) {
            return String.valueOf(rows.next().getField(0));
        }
    }

    /** Like an {@code INSERT}: the plan's job would not end, so it is loaded and translated. */
    private void explainPlan(String sql) {
        Matcher plan = EXECUTE_PLAN.matcher(sql);
        plan.matches();
        environment().loadPlan(PlanReference.fromFile(plan.group(1))).explain();
    }

    private void execute(String sql) throws Exception {
        Matcher insert = INSERT_VALUES.matcher(sql);
        long changesBefore = -1;
        boolean intoBuildTable =
                insert.matches() && running != null && isBuildTableOf(running, insert.group(1));
        if (intoBuildTable) {
            changesBefore = buildChangesApplied(running);
        }
        TableResult result = environment().executeSql(sql);
        if (result.getJobClient().isPresent()) {
            result.await();
        }
        if (intoBuildTable) {
            RunningQuery query = running;
            long before = changesBefore;
            Await.until(
                    "the running query applies the inserted build rows",
                    () -> buildChangesApplied(query) > before,
                    () -> JoinMetricsReporter.of(query.job()));
        }
    }

    private static boolean isInsertValues(String sql) {
        return INSERT_VALUES.matcher(sql).matches();
    }

    private static boolean isBuildTableOf(RunningQuery query, String table) {
        Matcher build = BUILD_TABLE.matcher(query.sql);
        return build.matches() && build.group(1).equalsIgnoreCase(table);
    }

    private static long buildChangesApplied(RunningQuery query) {
        try {
            return JoinMetricsReporter.of(query.job()).sum(NUM_BUILD_SIDE_CHANGES_APPLIED);
        } catch (AssertionError | RuntimeException notYetReported) {
            return 0;
        }
    }

    private void changeOptions(String sql) {
        Matcher set = SET.matcher(sql);
        Matcher resetKey = RESET_KEY.matcher(sql);
        if (set.matches()) {
            options.put(set.group(1), set.group(2));
        } else if (resetKey.matches()) {
            options.remove(resetKey.group(1));
        } else if (RESET_ALL.matcher(sql).matches()) {
            options.clear();
        } else {
            throw new IllegalArgumentException(
                    "Write SET 'key' = 'value', RESET 'key' or RESET: " + sql);
        }
    }

    // ---- output ----

    private void compare(Output output) throws Exception {
        if (explained != null) {
            String missing = DocumentedOutput.firstMissingLine(output.lines(), explained);
            if (missing != null) {
                throw new AssertionError(
                        "EXPLAIN printed something else. The documented line\n"
                                + missing
                                + "\nis not where it should be in:\n"
                                + explained);
            }
            explained = null;
        } else if (running != null) {
            compareRows(output.lines(), running);
        } else {
            throw new AssertionError(
                    "The output block shows no statement's output: only a query or an EXPLAIN"
                            + " before it prints one");
        }
    }

    private static void compareRows(List<String> block, RunningQuery query) throws Exception {
        List<List<String>> cells = DocumentedOutput.cells(block);
        if (cells.isEmpty()) {
            throw new AssertionError("The output block of a query must be a table");
        }
        List<String> columns = new ArrayList<>(query.columns);
        if (query.streaming) {
            columns.add(0, "op");
        }
        if (!cells.get(0).equals(columns)) {
            throw new AssertionError(
                    "The documented columns are " + cells.get(0) + ", the query's " + columns);
        }
        List<List<String>> documented = cells.subList(1, cells.size());
        List<List<String>> actual = query.take(documented.size(), ROWS_TIMEOUT);
        boolean ordered = query.sql.toUpperCase(Locale.ROOT).contains("ORDER BY");
        if (!inOrder(documented, ordered).equals(inOrder(actual, ordered))) {
            throw new AssertionError(
                    "The query printed other rows. Documented: "
                            + documented
                            + ", printed: "
                            + actual);
        }
    }

    private static List<List<String>> inOrder(List<List<String>> rows, boolean ordered) {
        if (ordered) {
            return rows;
        }
        List<List<String>> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparing(Object::toString));
        return sorted;
    }

    /** Ends the running query, which must not have printed more rows than documented. */
    private void endRunningQuery() throws Exception {
        if (running == null) {
            return;
        }
        try (RunningQuery query = running) {
            running = null;
            List<List<String>> rest = query.undocumentedRows(END_GRACE);
            if (!rest.isEmpty()) {
                throw new AssertionError(
                        "The query printed rows that no output block shows: " + rest);
            }
        }
    }

    // ---- session ----

    /** The environment of the session's options, as the SQL Client creates one per statement. */
    private TableEnvironment environment() {
        Map<String, String> current = Map.copyOf(options);
        return environments.computeIfAbsent(current, this::createEnvironment);
    }

    private TableEnvironment createEnvironment(Map<String, String> sessionOptions) {
        Configuration configuration = new Configuration();
        configuration.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        sessionOptions.forEach(configuration::setString);
        EnvironmentSettings settings =
                EnvironmentSettings.newInstance()
                        .withConfiguration(configuration)
                        .withBuiltInCatalogName("builtin_catalog")
                        .build();
        // The planner of the drop-in jar, as the SQL Client on a cluster with it has: the join is
        // installed, and EXPLAIN shows the projection fused into the join's operator.
        TableEnvironment env =
                PlannerFactoryEnvironments.create(
                        settings, LateralSnapshotPlannerFactory.class.getName());
        env.registerCatalog(CATALOG, catalog);
        env.useCatalog(CATALOG);
        return env;
    }

    private boolean isStreaming() {
        return !RuntimeExecutionMode.BATCH
                .name()
                .equalsIgnoreCase(options.get(ExecutionOptions.RUNTIME_MODE.key()));
    }

    private String localPaths(String sql) {
        return sql.replace(DOCUMENTED_ROOT, root.toAbsolutePath() + "/");
    }

    private String localPath(String path) {
        if (!path.startsWith(DOCUMENTED_ROOT)) {
            throw new IllegalArgumentException(
                    "Documents keep their files under " + DOCUMENTED_ROOT + ", not in " + path);
        }
        return localPaths(path);
    }

    @Override
    public void close() throws Exception {
        try {
            endRunningQuery();
        } finally {
            environments.clear();
        }
    }
}
