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

package dev.lateralsnapshot.tests.layout;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The longest a source file of the library may grow: a class past it holds more than one concern,
 * which the package layout of its module gives a class of its own (see the README's "Layout").
 * Counted in lines of the file, its licence header and imports included.
 */
class ClassSizeTest {

    @ParameterizedTest(name = "{0}: at most {1} lines")
    @CsvSource({"flink-lateral-snapshot-runtime, 500", "flink-lateral-snapshot-planner, 450"})
    void noClassOfTheModuleIsLongerThanItsBudget(String module, int budget) throws IOException {
        Path sources = Paths.get("..", module, "src", "main", "java");
        assertThat(sources).isDirectory();
        try (Stream<Path> files = Files.walk(sources)) {
            List<String> tooLong =
                    files.filter(path -> path.toString().endsWith(".java"))
                            .filter(path -> lines(path) > budget)
                            .map(path -> sources.relativize(path) + ": " + lines(path) + " lines")
                            .collect(Collectors.toList());
            assertThat(tooLong).isEmpty();
        }
    }

    private static long lines(Path path) {
        try (Stream<String> lines = Files.lines(path)) {
            return lines.count();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
