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

package dev.lateralsnapshot.planner;

import dev.lateralsnapshot.RootEndOfACycle;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.Slice;
import com.tngtech.archunit.library.dependencies.Slices;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The layout of the planner: data flows one way, from SQL to the operator (parse, functions, rules,
 * nodes, exec node, operator), with the public entry point and the planner factory on top, and
 * everything that leans on Flink planner internals in {@code planner.internal}.
 */
class PlannerArchitectureTest {

    private static final String INTERNAL = "dev.lateralsnapshot.planner.internal..";

    /**
     * The Flink classes whose use relies on more than their signatures; only {@code internal} uses
     * them, one hook each (see the package comment there).
     */
    private static final List<String> HOOKED_FLINK_CLASSES =
            List.of(
                    "org.apache.flink.table.planner.utils.JavaScalaConversionUtil",
                    "org.apache.flink.table.planner.utils.TableConfigUtils",
                    "org.apache.flink.table.planner.calcite.CalciteConfig",
                    "org.apache.flink.table.planner.calcite.CalciteConfigBuilder",
                    "org.apache.flink.table.planner.calcite.RelTimeIndicatorConverter",
                    "org.apache.flink.table.planner.calcite.RexTableArgCall",
                    "org.apache.flink.table.planner.functions.bridging.BridgingSqlFunction",
                    "org.apache.flink.table.planner.functions.sql.FlinkSqlOperatorTable",
                    "org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext",
                    "org.apache.flink.table.planner.delegation.StreamPlanner",
                    "org.apache.flink.table.planner.codegen.CalcCodeGenerator",
                    "org.apache.flink.table.planner.plan.nodes.exec.common.CommonExecCalc",
                    "org.apache.flink.table.planner.plan.nodes.exec.common.CommonExecTableSourceScan",
                    "org.apache.flink.table.planner.plan.nodes.exec.spec.DynamicTableSourceSpec",
                    "org.apache.flink.table.planner.plan.ExecNodeGraphInternalPlan",
                    "org.apache.flink.table.planner.plan.nodes.exec.serde.CompiledPlanSerdeUtil",
                    "org.apache.flink.table.planner.plan.utils.ExecNodeMetadataUtil",
                    "org.apache.flink.table.planner.plan.nodes.logical.FlinkLogicalTableFunctionScan",
                    "org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalProcessTableFunction",
                    "org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalTemporalJoin",
                    "org.apache.flink.table.planner.plan.optimize.program.FlinkStreamProgram",
                    "org.apache.flink.table.planner.plan.optimize.program.FlinkBatchProgram",
                    "org.apache.flink.table.planner.plan.optimize.program.FlinkRuleSetProgram",
                    "org.apache.flink.table.planner.plan.optimize.program.FlinkHepRuleSetProgram",
                    "org.apache.flink.table.planner.plan.optimize.program.FlinkHepRuleSetProgramBuilder",
                    "org.apache.flink.table.planner.plan.optimize.program.HEP_RULES_EXECUTION_TYPE",
                    "org.apache.flink.table.planner.plan.rules.logical.FlinkFilterJoinRule",
                    "org.apache.flink.table.planner.plan.rules.logical.FlinkFilterProjectTransposeRule",
                    "org.apache.flink.table.planner.plan.utils.ChangelogPlanUtils",
                    "org.apache.flink.table.api.internal.TableEnvironmentImpl",
                    "org.apache.flink.table.api.internal.TableImpl",
                    "org.apache.flink.table.catalog.CatalogManager",
                    "org.apache.flink.table.catalog.FunctionCatalog",
                    "org.apache.flink.table.module.ModuleManager",
                    "org.apache.flink.table.catalog.QueryOperationCatalogView",
                    "org.apache.flink.table.operations.CollectModifyOperation",
                    "org.apache.flink.table.operations.ExternalModifyOperation",
                    "org.apache.flink.table.operations.SinkModifyOperation",
                    "org.apache.flink.table.planner.operations.PlannerQueryOperation",
                    "org.apache.flink.table.planner.plan.QueryOperationConverter",
                    "org.apache.flink.table.types.inference.SystemTypeInference",
                    "org.apache.flink.sql.parser.impl.FlinkSqlParserImplTokenManager",
                    "org.apache.flink.sql.parser.impl.FlinkSqlParserImplConstants",
                    "org.apache.flink.sql.parser.impl.SimpleCharStream",
                    "org.apache.flink.sql.parser.impl.Token",
                    "org.apache.flink.sql.parser.impl.TokenMgrError");

    /**
     * The parser JavaCC generates from Flink's own grammar (see the planner's pom): it is Flink's
     * parser under another name, so it uses Flink's parser classes as Flink's parser does.
     */
    private static final String GENERATED_PARSER =
            "dev\\.lateralsnapshot\\.planner\\.parse\\."
                    + "(LateralSnapshotSqlParserImpl.*|Token|TokenMgrError|ParseException"
                    + "|SimpleCharStream)(\\$.*)?";

    private static final JavaClasses PLANNER =
            new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .importPackages("dev.lateralsnapshot");

    @Test
    void internalsKnowFlinkNotTheJoin() {
        noClasses()
                .that()
                .resideInAPackage(INTERNAL)
                .should()
                .dependOnClassesThat(
                        resideInAPackage("dev.lateralsnapshot..")
                                .and(resideOutsideOfPackage(INTERNAL)))
                .because("the hooks into Flink's planner must not import our nodes or rules")
                .check(PLANNER);
    }

    @Test
    void onlyTheInternalsUseTheHookedFlinkClasses() {
        noClasses()
                .that()
                .resideOutsideOfPackage(INTERNAL)
                .and()
                .haveNameNotMatching(GENERATED_PARSER)
                .should()
                .dependOnClassesThat(hookedFlinkClass())
                .orShould()
                .dependOnClassesThat(resideInAPackage("scala.."))
                .because(
                        "every use of a Flink planner internal goes through one hook class of"
                                + " dev.lateralsnapshot.planner.internal, which a guard test covers")
                .check(PLANNER);
    }

    /**
     * Every package is a slice of its own, the root package {@code dev.lateralsnapshot} of the
     * public entry point included: a slicing below the root would not see a cycle through it.
     */
    private static final ArchRule NO_IMPORT_CYCLES =
            slices().matching("(**)").should().beFreeOfCycles();

    @Test
    void noImportCycles() {
        NO_IMPORT_CYCLES.check(PLANNER);
    }

    @Test
    void theCycleCheckSlicesEveryPackage() {
        Set<String> packages =
                PLANNER.stream().map(JavaClass::getPackageName).collect(Collectors.toSet());
        Set<String> slices = new HashSet<>();
        for (Slice slice : Slices.matching("(**)").transform(PLANNER)) {
            slices.add(slice.getNamePart(1));
        }

        assertThat(packages).contains("dev.lateralsnapshot", "dev.lateralsnapshot.config");
        assertThat(slices).isEqualTo(packages);
    }

    @Test
    void theCycleCheckFindsACycleThroughTheRootPackage() {
        JavaClasses cycle =
                new ClassFileImporter()
                        .importClasses(RootEndOfACycle.class, PlannerEndOfACycle.class);

        assertThat(NO_IMPORT_CYCLES.evaluate(cycle).hasViolation()).isTrue();
    }

    @Test
    void dataFlowsOneWay() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("Entry point")
                .definedBy("dev.lateralsnapshot")
                .layer("Options")
                .definedBy("dev.lateralsnapshot.config..")
                .layer("Planner factory")
                .definedBy("dev.lateralsnapshot.planner.delegation..")
                .layer("Activation")
                .definedBy("dev.lateralsnapshot.planner.activation..")
                .layer("Table API operations")
                .definedBy("dev.lateralsnapshot.planner.operations..")
                .layer("Module")
                .definedBy("dev.lateralsnapshot.planner.module..")
                .layer("Parser")
                .definedBy("dev.lateralsnapshot.planner.parse..")
                .layer("Programs")
                .definedBy("dev.lateralsnapshot.planner.plan.optimize..")
                .layer("Rules")
                .definedBy("dev.lateralsnapshot.planner.plan.rules..")
                .layer("Logical nodes")
                .definedBy("dev.lateralsnapshot.planner.plan.nodes.logical..")
                .layer("Physical nodes")
                .definedBy("dev.lateralsnapshot.planner.plan.nodes.physical..")
                .layer("Exec nodes")
                .definedBy("dev.lateralsnapshot.planner.plan.nodes.exec..")
                .layer("Sources")
                .definedBy("dev.lateralsnapshot.planner.connector..")
                .layer("Functions")
                .definedBy("dev.lateralsnapshot.planner.functions..")
                .layer("Internals")
                .definedBy(INTERNAL)
                .layer("Operator")
                .definedBy("dev.lateralsnapshot.runtime..")
                .whereLayer("Planner factory")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("Entry point")
                .mayNotBeAccessedByAnyLayer()
                // What the entry point and the planner factory install, the same for both.
                .whereLayer("Activation")
                .mayOnlyBeAccessedByLayers("Entry point", "Planner factory")
                // Read where statements are planned.
                .whereLayer("Options")
                .mayOnlyBeAccessedByLayers("Programs", "Rules", "Physical nodes")
                .whereLayer("Table API operations")
                .mayOnlyBeAccessedByLayers("Activation")
                .whereLayer("Module")
                .mayOnlyBeAccessedByLayers("Activation")
                .whereLayer("Parser")
                .mayOnlyBeAccessedByLayers("Activation")
                .whereLayer("Programs")
                .mayOnlyBeAccessedByLayers("Activation")
                .whereLayer("Rules")
                .mayOnlyBeAccessedByLayers("Programs")
                .whereLayer("Logical nodes")
                .mayOnlyBeAccessedByLayers("Programs", "Rules")
                .whereLayer("Physical nodes")
                .mayOnlyBeAccessedByLayers("Programs", "Rules")
                .whereLayer("Exec nodes")
                // The activation registers the exec node for compiled plans and installs the
                // exec-graph processor.
                .mayOnlyBeAccessedByLayers("Activation", "Physical nodes")
                // The exec nodes make the join's build source report a backlog.
                .whereLayer("Sources")
                .mayOnlyBeAccessedByLayers("Exec nodes")
                .whereLayer("Functions")
                .mayOnlyBeAccessedByLayers(
                        "Entry point",
                        "Activation",
                        "Table API operations",
                        "Module",
                        "Rules",
                        "Logical nodes",
                        "Physical nodes")
                .whereLayer("Operator")
                .mayOnlyBeAccessedByLayers("Physical nodes", "Exec nodes", "Sources")
                .check(PLANNER);
    }

    @Test
    void everyInternalHookHasAGuardTest() {
        List<String> unguarded =
                PLANNER.stream()
                        .filter(javaClass -> javaClass.getPackageName().equals(internalPackage()))
                        .filter(javaClass -> javaClass.isTopLevelClass())
                        .filter(javaClass -> !javaClass.getSimpleName().equals("package-info"))
                        .map(JavaClass::getName)
                        .filter(name -> !exists(name + "Test"))
                        .collect(Collectors.toList());
        assertThat(unguarded)
                .as("classes of %s without a guard test of the same name", internalPackage())
                .isEmpty();
    }

    private static String internalPackage() {
        return INTERNAL.substring(0, INTERNAL.length() - 2);
    }

    private static boolean exists(String className) {
        try {
            Class.forName(className, false, PlannerArchitectureTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static DescribedPredicate<JavaClass> hookedFlinkClass() {
        return DescribedPredicate.describe(
                "are Flink classes the internals hook into",
                javaClass ->
                        HOOKED_FLINK_CLASSES.stream()
                                .anyMatch(
                                        hooked ->
                                                javaClass.getName().equals(hooked)
                                                        || javaClass
                                                                .getName()
                                                                .startsWith(hooked + "$")));
    }
}
