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

package dev.lateralsnapshot.planner.internal;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.config.OptimizerConfigOptions;
import org.apache.flink.table.planner.plan.optimize.program.FlinkBatchProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkChainedProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkRuleSetProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkStreamProgram;
import org.apache.flink.table.planner.plan.optimize.program.StreamOptimizeContext;

import org.apache.calcite.tools.RuleSets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/** Guards for {@link OptimizerPrograms}: the phases of Flink's programs the library hooks into. */
class OptimizerProgramsTest {

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void flinkProgramsHaveThePhasesTheLibraryHooksInto(boolean joinReorder) {
        Configuration config = new Configuration();
        config.set(OptimizerConfigOptions.TABLE_OPTIMIZER_JOIN_REORDER_ENABLED, joinReorder);

        FlinkChainedProgram<?> stream = FlinkStreamProgram.buildProgram(config);
        assertThat(stream.getProgramNames())
                .as(
                        "Flink's stream optimizer program lost a phase that"
                                + " OptimizerPrograms.STREAM_PHASES hooks into")
                .containsAll(OptimizerPrograms.STREAM_PHASES);
        for (String phase :
                List.of(
                        FlinkStreamProgram.PROJECT_REWRITE(),
                        FlinkStreamProgram.LOGICAL(),
                        FlinkStreamProgram.PHYSICAL())) {
            assertThat(stream.get(phase).get())
                    .as("Flink's stream phase '%s' is no longer a rule set program", phase)
                    .isInstanceOf(FlinkRuleSetProgram.class);
        }
        assertThat(FlinkBatchProgram.buildProgram(config).getProgramNames())
                .as(
                        "Flink's batch optimizer program lost a phase that"
                                + " OptimizerPrograms.BATCH_PHASES hooks into")
                .containsAll(OptimizerPrograms.BATCH_PHASES);

        // The capture needs decorrelated joins and must precede projection push-down.
        List<String> extended =
                extendedWithNothing(config, physicalRewrite -> physicalRewrite).getProgramNames();
        int capture = extended.indexOf(OptimizerPrograms.CAPTURE_PROGRAM);
        assertThat(capture)
                .as("the capture must run after decorrelation and before the default rewrite")
                .isGreaterThan(extended.indexOf(FlinkStreamProgram.DECORRELATE()))
                .isLessThan(extended.indexOf(FlinkStreamProgram.DEFAULT_REWRITE()))
                .isLessThan(extended.indexOf(FlinkStreamProgram.PROJECT_REWRITE()));
    }

    @Test
    void physicalRewriteIsWrappedInItsPlace() {
        Configuration config = new Configuration();
        List<FlinkOptimizeProgram<StreamOptimizeContext>> wrapped = new ArrayList<>();
        FlinkOptimizeProgram<StreamOptimizeContext> wrapper = (root, context) -> root;
        FlinkChainedProgram<StreamOptimizeContext> program =
                extendedWithNothing(
                        config,
                        physicalRewrite -> {
                            wrapped.add(physicalRewrite);
                            return wrapper;
                        });

        List<String> flinks = FlinkStreamProgram.buildProgram(config).getProgramNames();
        List<String> names = new ArrayList<>(program.getProgramNames());
        names.remove(OptimizerPrograms.CAPTURE_PROGRAM);
        assertThat(names)
                .as("the extension must keep Flink's phases in Flink's order")
                .isEqualTo(flinks);
        assertThat(wrapped)
                .as("Flink's physical_rewrite program must be handed to the wrapper once")
                .hasSize(1);
        assertThat(program.get(FlinkStreamProgram.PHYSICAL_REWRITE()).get()).isSameAs(wrapper);
    }

    @Test
    void perOptimizationProgramsAreRecognizedByName() {
        FlinkChainedProgram<StreamOptimizeContext> program =
                OptimizerPrograms.perOptimization("shell", FlinkStreamProgram::buildProgram);
        assertThat(OptimizerPrograms.hasProgram(program, "shell")).isTrue();
        assertThat(OptimizerPrograms.hasProgram(program, "other")).isFalse();
    }

    /** Flink's stream program, extended with a capture, rules and a wrapper that do nothing. */
    private static FlinkChainedProgram<StreamOptimizeContext> extendedWithNothing(
            Configuration config,
            UnaryOperator<FlinkOptimizeProgram<StreamOptimizeContext>> physicalRewrite) {
        return OptimizerPrograms.streamProgram(
                config,
                (root, context) -> root,
                RuleSets.ofList(),
                RuleSets.ofList(),
                RuleSets.ofList(),
                physicalRewrite);
    }
}
