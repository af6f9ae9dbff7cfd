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

import dev.lateralsnapshot.testutils.environments.MiniClusters;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs every SQL snippet of the documentation, so that the documentation cannot drift from the
 * code: each statement of each {@code ```sql} block in {@code README.md} and {@code docs/*.md} runs
 * on a MiniCluster with the LATERAL SNAPSHOT join installed, documented errors must be the errors,
 * and documented output must be the output. {@link MarkdownSnippets} says what is run, {@link
 * DocumentRun} how, and {@link DocumentedOutput} how output is compared.
 *
 * <p>Each document runs in a session of its own, from its first snippet to its last, with its files
 * in a directory of its own. The Kafka and CDC tutorials are the exceptions: their SQL needs a
 * Kafka broker (and the CDC tutorial's a PostgreSQL server and Debezium), and {@code
 * KafkaTutorialIT} and {@code CdcTutorialIT} of flink-lateral-snapshot-e2e run them on real ones.
 */
class DocsSqlSnippetsITCase {

    /** Enough for a running query and an insert next to it, each at parallelism 1. */
    private static final int SLOTS = 4;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.extension(SLOTS);

    /** The pages whose SQL the end-to-end tests run, against a real Kafka broker. */
    private static final List<String> END_TO_END_PAGES =
            List.of("kafka-tutorial.md", "cdc-tutorial.md");

    @TempDir Path directory;

    static Stream<Path> documents() throws IOException {
        Path repository = repository();
        List<Path> documents = new ArrayList<>();
        documents.add(repository.resolve("README.md"));
        try (Stream<Path> docs = Files.list(repository.resolve("docs"))) {
            documents.addAll(
                    docs.filter(file -> file.toString().endsWith(".md"))
                            .filter(
                                    file ->
                                            !END_TO_END_PAGES.contains(
                                                    file.getFileName().toString()))
                            .sorted()
                            .collect(Collectors.toList()));
        }
        return documents.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documents")
    void snippetsRunAsDocumented(Path document) throws Exception {
        try (DocumentRun run = new DocumentRun(document, directory)) {
            run.run();
        }
    }

    @Test
    void theReferenceTutorialAndOperationsPagesHaveSql() throws Exception {
        Path docs = repository().resolve("docs");
        for (String page : List.of("lateral-snapshot-join.md", "tutorial.md", "operations.md")) {
            assertThat(MarkdownSnippets.read(docs.resolve(page)))
                    .as(page)
                    .anyMatch(snippet -> snippet instanceof MarkdownSnippets.Statement);
        }
    }

    /** The repository root: the module's parent, where the README is. */
    private static Path repository() {
        Path module = Path.of("").toAbsolutePath();
        Path repository = module.getParent();
        assertThat(repository.resolve("README.md")).as("the README of the repository").exists();
        return repository;
    }
}
