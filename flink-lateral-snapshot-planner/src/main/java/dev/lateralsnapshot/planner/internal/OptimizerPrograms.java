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

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.planner.plan.optimize.program.BatchOptimizeContext;
import org.apache.flink.table.planner.plan.optimize.program.FlinkBatchProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkChainedProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkHepRuleSetProgramBuilder;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeContext;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkRuleSetProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkStreamProgram;
import org.apache.flink.table.planner.plan.optimize.program.HEP_RULES_EXECUTION_TYPE;
import org.apache.flink.table.planner.plan.optimize.program.StreamOptimizeContext;

import org.apache.calcite.plan.hep.HepMatchOrder;
import org.apache.calcite.tools.RuleSet;

import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Flink's optimizer programs, extended by name. Flink builds its stream and batch programs as a
 * chain of named phases; the library adds a program before {@code default_rewrite}, adds rules to
 * the rule set programs of {@code project_rewrite}, {@code logical} and {@code physical}, and wraps
 * {@code physical_rewrite}. The phase names are the constants of {@link FlinkStreamProgram} and
 * {@link FlinkBatchProgram}; that those phases exist, in this order, and that the three are rule
 * set programs is what a new Flink version could change.
 */
public final class OptimizerPrograms {

    /** The name of the program that captures LATERAL SNAPSHOT joins. */
    public static final String CAPTURE_PROGRAM = "lateral_snapshot_capture";

    /**
     * The capture runs after sub-query rewriting and decorrelation (which produce the joins it
     * matches) and before the default rewrite, which would push projections between the join and
     * the {@code SNAPSHOT} scan.
     */
    public static final String CAPTURE_BEFORE_PHASE = FlinkStreamProgram.DEFAULT_REWRITE();

    /** The phases the stream program extension needs, in the order they run. */
    public static final List<String> STREAM_PHASES =
            List.of(
                    FlinkStreamProgram.DEFAULT_REWRITE(),
                    FlinkStreamProgram.PROJECT_REWRITE(),
                    FlinkStreamProgram.LOGICAL(),
                    FlinkStreamProgram.PHYSICAL(),
                    FlinkStreamProgram.PHYSICAL_REWRITE());

    /** The phases the batch program extension needs. */
    public static final List<String> BATCH_PHASES = List.of(FlinkBatchProgram.DEFAULT_REWRITE());

    private OptimizerPrograms() {}

    /**
     * Flink's stream program for the given configuration, extended.
     *
     * @param capture the program that replaces joins with {@code SNAPSHOT} by the join node
     * @param projectRules rules for Flink's projection push-down phase
     * @param logicalRules rules for Flink's logical phase (conversion to Flink's convention)
     * @param physicalRules rules for Flink's physical phase
     * @param physicalRewrite wraps Flink's {@code physical_rewrite} program
     */
    public static FlinkChainedProgram<StreamOptimizeContext> streamProgram(
            ReadableConfig config,
            FlinkOptimizeProgram<StreamOptimizeContext> capture,
            RuleSet projectRules,
            RuleSet logicalRules,
            RuleSet physicalRules,
            UnaryOperator<FlinkOptimizeProgram<StreamOptimizeContext>> physicalRewrite) {
        FlinkChainedProgram<StreamOptimizeContext> program =
                FlinkStreamProgram.buildProgram(config);
        checkPhases(program, STREAM_PHASES, "stream");
        program.addBefore(CAPTURE_BEFORE_PHASE, CAPTURE_PROGRAM, capture);
        ruleSetProgram(program, FlinkStreamProgram.PROJECT_REWRITE()).add(projectRules);
        ruleSetProgram(program, FlinkStreamProgram.LOGICAL()).add(logicalRules);
        ruleSetProgram(program, FlinkStreamProgram.PHYSICAL()).add(physicalRules);
        replace(program, FlinkStreamProgram.PHYSICAL_REWRITE(), physicalRewrite);
        return program;
    }

    /** Flink's batch program for the given configuration, extended with the capture program. */
    public static FlinkChainedProgram<BatchOptimizeContext> batchProgram(
            ReadableConfig config, FlinkOptimizeProgram<BatchOptimizeContext> capture) {
        FlinkChainedProgram<BatchOptimizeContext> program = FlinkBatchProgram.buildProgram(config);
        checkPhases(program, BATCH_PHASES, "batch");
        program.addBefore(FlinkBatchProgram.DEFAULT_REWRITE(), CAPTURE_PROGRAM, capture);
        return program;
    }

    /**
     * A chain of one program that builds another per optimization from the configuration in effect,
     * and runs it. Flink itself builds its programs per optimization, and several phases depend on
     * the configuration (join reordering, for one); a program built once at installation would
     * freeze those options.
     */
    public static <OC extends FlinkOptimizeContext> FlinkChainedProgram<OC> perOptimization(
            String name, Function<ReadableConfig, FlinkChainedProgram<OC>> build) {
        FlinkChainedProgram<OC> program = new FlinkChainedProgram<>();
        program.addLast(
                name,
                (root, context) -> build.apply(context.getTableConfig()).optimize(root, context));
        return program;
    }

    /** Whether the chain has a program of that name. */
    public static boolean hasProgram(FlinkChainedProgram<?> program, String name) {
        return program.getProgramNames().contains(name);
    }

    /**
     * A HEP program that applies the rules bottom-up: as a collection until none matches, or as a
     * sequence, each rule once in the given order.
     */
    public static <OC extends FlinkOptimizeContext> FlinkOptimizeProgram<OC> hepProgram(
            RuleSet rules, boolean sequence) {
        return FlinkHepRuleSetProgramBuilder.<OC>newBuilder()
                .setHepRulesExecutionType(
                        sequence
                                ? HEP_RULES_EXECUTION_TYPE.RULE_SEQUENCE()
                                : HEP_RULES_EXECUTION_TYPE.RULE_COLLECTION())
                .setHepMatchOrder(HepMatchOrder.BOTTOM_UP)
                .add(rules)
                .build();
    }

    private static void checkPhases(
            FlinkChainedProgram<?> program, List<String> phases, String mode) {
        List<String> names = program.getProgramNames();
        for (String phase : phases) {
            if (!names.contains(phase)) {
                throw new TableException(
                        String.format(
                                "LATERAL SNAPSHOT cannot extend Flink's %s optimizer: it has no"
                                        + " phase '%s' (phases: %s). This library is built for"
                                        + " Flink 2.3.0 only.",
                                mode, phase, names));
            }
        }
    }

    private static <OC extends FlinkOptimizeContext> FlinkRuleSetProgram<OC> ruleSetProgram(
            FlinkChainedProgram<OC> program, String phase) {
        FlinkOptimizeProgram<OC> phaseProgram = program.get(phase).get();
        if (!(phaseProgram instanceof FlinkRuleSetProgram)) {
            throw new TableException(
                    String.format(
                            "LATERAL SNAPSHOT cannot add rules to Flink's optimizer phase '%s': it"
                                    + " is a %s, not a rule set program. This library is built"
                                    + " for Flink 2.3.0 only.",
                            phase, phaseProgram.getClass().getName()));
        }
        return (FlinkRuleSetProgram<OC>) phaseProgram;
    }

    private static <OC extends FlinkOptimizeContext> void replace(
            FlinkChainedProgram<OC> program,
            String phase,
            UnaryOperator<FlinkOptimizeProgram<OC>> wrapper) {
        List<String> names = program.getProgramNames();
        int position = names.indexOf(phase);
        FlinkOptimizeProgram<OC> wrapped = wrapper.apply(program.remove(phase).get());
        if (position == names.size() - 1) {
            program.addLast(phase, wrapped);
        } else {
            program.addBefore(names.get(position + 1), phase, wrapped);
        }
    }
}
