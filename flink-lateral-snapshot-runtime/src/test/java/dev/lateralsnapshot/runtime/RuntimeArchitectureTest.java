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

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Collectors;

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

    private static final String SOURCES = "dev.lateralsnapshot.runtime.connector..";

    private static final String INTERNAL = "dev.lateralsnapshot.runtime.internal";

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
    void theSourceWrapperAndTheJoinKnowNotEachOther() {
        noClasses()
                .that()
                .resideInAPackage(SOURCES)
                .should()
                .dependOnClassesThat()
                .resideInAPackage(CORE + "..")
                .because("the join hears of the backlog only through Flink's RecordAttributes")
                .check(RUNTIME);
        noClasses()
                .that()
                .resideInAPackage(CORE + "..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage(SOURCES)
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
    void internalsKnowFlinkNotTheJoin() {
        noClasses()
                .that()
                .resideInAPackage(INTERNAL)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.lateralsnapshot.runtime.operators..", SOURCES)
                .because("a hook knows Flink, not the join")
                .check(RUNTIME);
    }

    @Test
    void onlyTheInternalsUseTheStateBackendsImplementations() {
        noClasses()
                .that()
                .resideOutsideOfPackage(INTERNAL)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.apache.flink.state.rocksdb..",
                        "org.rocksdb..",
                        "org.apache.flink.state.forst..",
                        "org.forstdb..")
                .because(
                        "every use of a state backend's implementation goes through one hook"
                                + " class of "
                                + INTERNAL
                                + ", which a guard test covers")
                .check(RUNTIME);
    }

    @Test
    void everyInternalHookHasAGuardTest() {
        List<String> unguarded =
                RUNTIME.stream()
                        .filter(javaClass -> javaClass.getPackageName().equals(INTERNAL))
                        .filter(JavaClass::isTopLevelClass)
                        .filter(javaClass -> !javaClass.isInterface())
                        .filter(javaClass -> !javaClass.getSimpleName().equals("package-info"))
                        .map(JavaClass::getName)
                        .filter(name -> !exists(name + "Test"))
                        .collect(Collectors.toList());
        assertThat(unguarded)
                .as("classes of %s without a guard test of the same name", INTERNAL)
                .isEmpty();
    }

    private static boolean exists(String className) {
        try {
            Class.forName(className, false, RuntimeArchitectureTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
