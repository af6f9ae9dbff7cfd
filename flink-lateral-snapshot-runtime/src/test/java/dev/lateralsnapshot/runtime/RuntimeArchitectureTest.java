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

package dev.lateralsnapshot.runtime;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The layout of the operator's packages: the operator and what both distributions share know
 * neither distribution, each distribution knows only the shared core and the index, and nothing
 * depends in a circle. The planner picks a distribution; the operator only asks it for its state.
 */
class RuntimeArchitectureTest {

    private static final String CORE = "dev.lateralsnapshot.runtime.operators.join.snapshot";

    /** A class this long is two classes; the layout above keeps each concern in one of its own. */
    private static final int MAX_LINES_OF_A_CLASS = 500;

    private static final JavaClasses RUNTIME =
            new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .importPackages("dev.lateralsnapshot.runtime");

    @Test
    void noImportCycles() {
        slices().matching("dev.lateralsnapshot.runtime.(**)")
                .should()
                .beFreeOfCycles()
                .check(RUNTIME);
    }

    @Test
    void theOperatorKnowsNoDistribution() {
        noClasses()
                .that()
                .resideInAPackage(CORE)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(CORE + ".keyed..", CORE + ".broadcast..")
                .because("the distribution is chosen by the planner and reached through JoinState")
                .check(RUNTIME);
    }

    @Test
    void theDistributionsKnowNotEachOther() {
        noClasses()
                .that()
                .resideInAPackage(CORE + ".keyed..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage(CORE + ".broadcast..")
                .check(RUNTIME);
        noClasses()
                .that()
                .resideInAPackage(CORE + ".broadcast..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage(CORE + ".keyed..")
                .check(RUNTIME);
    }

    @Test
    void theIndexKnowsNothingOfTheJoin() {
        noClasses()
                .that()
                .resideInAPackage(CORE + ".index..")
                .should()
                .dependOnClassesThat()
                .resideOutsideOfPackages(
                        CORE + ".index..", "java..", "javax..", "org.apache.flink..")
                .check(RUNTIME);
    }

    @Test
    void noClassIsLongerThanItsBudget() throws IOException {
        try (Stream<Path> sources = Files.walk(Paths.get("src/main/java"))) {
            List<String> tooLong =
                    sources.filter(path -> path.toString().endsWith(".java"))
                            .filter(path -> lines(path) > MAX_LINES_OF_A_CLASS)
                            .map(path -> path + ": " + lines(path) + " lines")
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
