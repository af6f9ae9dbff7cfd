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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tutorial of {@code docs/} run as a reader does, on a {@link LocalFlinkCluster}: its code blocks
 * by their info string ({@code sql} for Flink's SQL Client, {@code text output} for what it prints,
 * and others), its Flink SQL run with the SQL Client ({@code -i} the tables' block, {@code -f} each
 * other), and the rows it shows compared with the rows the SQL Client printed. The page's SQL names
 * the local servers by their default addresses; the replacements put the test servers' in.
 */
final class TutorialPage {

    private static final Pattern FENCE = Pattern.compile("^```\\s*(.*)$");
    private static final Pattern JOB_ID = Pattern.compile("Job ID: ([0-9a-f]{32})");
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final Path page;
    private final LocalFlinkCluster cluster;
    private final String name;
    private final Map<String, String> replacements;
    private Path init;
    private int scripts;

    /**
     * The page {@code docs/<name>.md}, whose files go into the cluster's run directory, named after
     * it.
     */
    TutorialPage(String name, LocalFlinkCluster cluster, Map<String, String> replacements) {
        this.page = Path.of("").toAbsolutePath().getParent().resolve("docs/" + name + ".md");
        this.cluster = cluster;
        this.name = name;
        this.replacements = replacements;
    }

    /** The bodies of the page's code blocks whose info string is {@code info}, in order. */
    List<String> blocks(String info) {
        List<String> blocks = new ArrayList<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (int i = 0; i < lines.size(); i++) {
            Matcher fence = FENCE.matcher(lines.get(i));
            if (!fence.matches() || fence.group(1).isEmpty()) {
                continue;
            }
            int end = i + 1;
            while (!lines.get(end).equals("```")) {
                end++;
            }
            if (fence.group(1).trim().equals(info)) {
                blocks.add(String.join("\n", lines.subList(i + 1, end)));
            }
            i = end;
        }
        return blocks;
    }

    /** The lines of the page's {@code bash} blocks that start with {@code prefix}, in order. */
    List<String> commands(String prefix) {
        List<String> commands = new ArrayList<>();
        for (String block : blocks("bash")) {
            for (String line : block.split("\n")) {
                if (line.startsWith(prefix)) {
                    commands.add(line);
                }
            }
        }
        return commands;
    }

    // ---- the SQL Client ----

    /** The statements that every later run of the SQL Client gets as its init script. */
    void init(String statements) {
        init = write(name + ".sql", statements);
    }

    /** Runs statements with the SQL Client after the init script; returns what it printed. */
    String run(String statements) {
        String printed =
                cluster.sqlClientWithFile(init, write(name + "-" + ++scripts + ".sql", statements));
        assertThat(printed).as("what the SQL Client printed").doesNotContain("[ERROR]");
        return printed;
    }

    /** The ids of the jobs that the SQL Client reports it submitted, in order. */
    static List<String> jobIds(String printed) {
        List<String> ids = new ArrayList<>();
        Matcher id = JOB_ID.matcher(printed);
        while (id.find()) {
            ids.add(id.group(1));
        }
        assertThat(ids).as("a submitted job in:%n%s", printed).isNotEmpty();
        return ids;
    }

    /** Waits until the jobs of {@code INSERT ... VALUES} statements have written their rows. */
    void awaitFinished(List<String> jobIds) {
        for (String id : jobIds) {
            ClusterJob job = new ClusterJob(cluster.rest(), id);
            Wait.until(TIMEOUT, "job " + id + " FINISHED", () -> job.state().equals("FINISHED"));
        }
    }

    /** Runs {@code INSERT ... VALUES} statements and waits until their jobs have finished. */
    void insert(String statements) {
        awaitFinished(jobIds(run(statements)));
    }

    // ---- output ----

    /** The rows of a tableau result against the page's, sorted: the pages allow any order. */
    static void assertSameRows(String printed, String documented) {
        assertThat(rows(printed))
                .as("the rows of%n%s%nagainst the page's%n%s", printed, documented)
                .isEqualTo(rows(documented));
    }

    private static List<List<String>> rows(String table) {
        return Arrays.stream(table.split("\n"))
                .filter(line -> line.startsWith("| "))
                .map(
                        line ->
                                Arrays.stream(line.substring(1).split("\\|"))
                                        .map(String::trim)
                                        .collect(Collectors.toList()))
                .sorted((a, b) -> a.toString().compareTo(b.toString()))
                .collect(Collectors.toList());
    }

    /** A block of the page with the test servers' addresses in place of the page's. */
    String replaced(String text) {
        String replaced = text;
        for (Map.Entry<String, String> replacement : replacements.entrySet()) {
            replaced = replaced.replace(replacement.getKey(), replacement.getValue());
        }
        return replaced;
    }

    /** Writes a file of the page into the cluster's run directory, with the replacements made. */
    private Path write(String file, String text) {
        try {
            return Files.writeString(cluster.runDirectory().resolve(file), replaced(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
