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

package dev.lateralsnapshot.planner.plan.optimize;

import dev.lateralsnapshot.planner.internal.ChangelogNormalizations;
import dev.lateralsnapshot.planner.internal.ProcessTableFunctionDisguise;
import dev.lateralsnapshot.planner.internal.ProcessTableFunctionDisguise.InputDroppedException;
import dev.lateralsnapshot.planner.plan.nodes.physical.stream.ChangelogInferenceNode;
import dev.lateralsnapshot.planner.plan.nodes.physical.stream.StreamPhysicalLateralSnapshotJoin;

import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeProgram;
import org.apache.flink.table.planner.plan.optimize.program.StreamOptimizeContext;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.util.ImmutableBitSet;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BinaryOperator;

/**
 * Runs Flink's {@code physical_rewrite}, which infers the changelog modes, with every LATERAL
 * SNAPSHOT join presented as a {@link ChangelogInferenceNode}, and restores the joins afterwards.
 *
 * <p>Flink asks the build input of the disguise for an upsert changelog (no UPDATE_BEFORE) when the
 * equality keys are an upsert key of it. Not every such input can deliver one: a filter on a column
 * outside the key, for one, cannot (an update that leaves the filter would have to become a
 * delete). For its own temporal join Flink then asks again with UPDATE_BEFORE; for a process table
 * function it drops the input instead. The rewrite then starts over with the build argument of that
 * join requiring UPDATE_BEFORE, as for a build input not keyed by the equality keys. The operator
 * still keeps one row per key when the upsert key lies within the equality keys (see {@link
 * StreamPhysicalLateralSnapshotJoin}).
 *
 * <p>An updating probe input fails the inference; that error is rethrown with a message about the
 * probe input, as Flink's names the internal node instead.
 */
public final class ChangelogInferenceProgram {

    private ChangelogInferenceProgram() {}

    /** Wraps Flink's {@code physical_rewrite} program. */
    public static FlinkOptimizeProgram<StreamOptimizeContext> wrap(
            FlinkOptimizeProgram<StreamOptimizeContext> physicalRewrite) {
        return (root, context) -> {
            // The joins of root whose build argument requires UPDATE_BEFORE.
            Set<RelNode> retractingJoins = Collections.newSetFromMap(new IdentityHashMap<>());
            while (true) {
                RelNode disguised =
                        swap(root, (original, node) -> disguise(original, node, retractingJoins));
                RelNode rewritten;
                try {
                    rewritten = rewrite(physicalRewrite, disguised, context);
                } catch (InputDroppedException dropped) {
                    StreamPhysicalLateralSnapshotJoin join = joinOf(dropped.disguise());
                    if (!retractingJoins.add(join)) {
                        throw inputsCannotBeDelivered(join, dropped);
                    }
                    continue;
                }
                return swap(rewritten, (original, node) -> undisguise(node));
            }
        };
    }

    private static RelNode rewrite(
            FlinkOptimizeProgram<StreamOptimizeContext> physicalRewrite,
            RelNode disguised,
            StreamOptimizeContext context) {
        try {
            return physicalRewrite.optimize(disguised, context);
        } catch (TableException e) {
            Optional<String> rejected =
                    ProcessTableFunctionDisguise.rejectedChanges(
                            e, StreamPhysicalLateralSnapshotJoin.class.getSimpleName());
            if (rejected.isEmpty()) {
                throw e;
            }
            ValidationException error =
                    new ValidationException(
                            "The probe (left) input of LATERAL SNAPSHOT join doesn't support"
                                    + " consuming "
                                    + rejected.get());
            // Suppressed, not the cause: the SQL Client shows the root cause only, and Flink's
            // message names our internal node instead of the probe input.
            error.addSuppressed(e);
            throw error;
        }
    }

    private static StreamPhysicalLateralSnapshotJoin joinOf(ProcessTableFunctionDisguise disguise) {
        return ((ChangelogInferenceNode) disguise).getJoin();
    }

    /**
     * For an input Flink refuses even with UPDATE_BEFORE. None is known on Flink 2.3 (every node it
     * visits can deliver UPDATE_BEFORE, and an updating probe input fails before), so this ends the
     * retries should another version have one.
     */
    private static ValidationException inputsCannotBeDelivered(
            StreamPhysicalLateralSnapshotJoin join, InputDroppedException dropped) {
        ValidationException error =
                new ValidationException(
                        String.format(
                                "The LATERAL SNAPSHOT join %s cannot be planned: Flink cannot"
                                        + " deliver its probe (left) input as inserts only"
                                        + " together with its build (right) input as a changelog"
                                        + " with UPDATE_BEFORE messages. Simplify the build input,"
                                        + " for example by writing it to a table first and"
                                        + " joining that table.",
                                join.getRelDetailedDescription()));
        error.addSuppressed(dropped);
        return error;
    }

    private static RelNode disguise(RelNode original, RelNode node, Set<RelNode> retractingJoins) {
        if (!(node instanceof StreamPhysicalLateralSnapshotJoin)) {
            return node;
        }
        // The disguise remembers the join of root, which is the same in every attempt; node is
        // that join with its inputs disguised.
        return new ChangelogInferenceNode(
                node.getTraitSet(),
                node.getInputs(),
                (StreamPhysicalLateralSnapshotJoin) original,
                retractingJoins.contains(original));
    }

    private static RelNode undisguise(RelNode node) {
        if (!(node instanceof ChangelogInferenceNode)) {
            return node;
        }
        return withoutUpsertNormalization(((ChangelogInferenceNode) node).toJoin());
    }

    /**
     * The join reading an upsert build source without the {@code ChangelogNormalize} that Flink
     * keeps in front of it because a metadata column of the source is read (typically {@code
     * on_time} from Kafka's record timestamp). The join needs no full rows: keyed by the source's
     * key, it keeps one row per key, an upsert replaces it, and a delete removes it by key and
     * applies at its own time, the time of the delete. Without the normalization the reference
     * table is held once, in the join, instead of twice.
     */
    private static StreamPhysicalLateralSnapshotJoin withoutUpsertNormalization(
            StreamPhysicalLateralSnapshotJoin join) {
        ImmutableBitSet buildKeys = ImmutableBitSet.of(join.joinSpec().getRightKeys());
        return ChangelogNormalizations.withoutUpsertNormalization(join.getRight(), buildKeys)
                .map(
                        build ->
                                (StreamPhysicalLateralSnapshotJoin)
                                        join.copy(
                                                join.getTraitSet(),
                                                join.getCondition(),
                                                join.getLeft(),
                                                build,
                                                join.getJoinType(),
                                                false))
                .orElse(join);
    }

    /**
     * Applies a node replacement bottom-up; shared sub-plans stay shared. The replacement gets the
     * original node and the node with the replaced inputs.
     */
    private static RelNode swap(RelNode root, BinaryOperator<RelNode> replacement) {
        return swap(root, replacement, new IdentityHashMap<>());
    }

    private static RelNode swap(
            RelNode node, BinaryOperator<RelNode> replacement, Map<RelNode, RelNode> done) {
        RelNode swapped = done.get(node);
        if (swapped != null) {
            return swapped;
        }
        List<RelNode> inputs = new ArrayList<>();
        boolean inputsChanged = false;
        for (RelNode input : node.getInputs()) {
            RelNode newInput = swap(input, replacement, done);
            inputsChanged |= newInput != input;
            inputs.add(newInput);
        }
        RelNode withInputs = inputsChanged ? node.copy(node.getTraitSet(), inputs) : node;
        swapped = replacement.apply(node, withInputs);
        done.put(node, swapped);
        return swapped;
    }
}
