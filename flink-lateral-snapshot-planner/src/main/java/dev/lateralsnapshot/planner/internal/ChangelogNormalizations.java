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

import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalCalcBase;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalChangelogNormalize;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalExchange;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalTableSourceScan;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalWatermarkAssigner;
import org.apache.flink.table.planner.plan.trait.DeleteKindTraitDef;
import org.apache.flink.table.planner.plan.trait.ModifyKindSetTraitDef;
import org.apache.flink.table.planner.plan.trait.UpdateKindTrait;
import org.apache.flink.table.planner.plan.trait.UpdateKindTraitDef;
import org.apache.flink.table.planner.utils.ShortcutUtils;

import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLocalRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.util.ImmutableBitSet;

import java.util.List;
import java.util.Optional;

/**
 * Flink's {@code ChangelogNormalize} in front of an upsert source: a keyed copy of the whole table
 * in state that turns the source's upserts into a changelog with full rows. Flink's changelog mode
 * inference drops the node for a consumer that takes upserts and deletes by key, unless a metadata
 * column of the source is read ({@code ChangelogNormalizeRequirementResolver}): its deletes would
 * then carry the metadata of the delete instead of the deleted row's. This class finds the nodes
 * that do nothing else, so that a consumer for which that difference does not matter can read the
 * source without them.
 */
public final class ChangelogNormalizations {

    private ChangelogNormalizations() {}

    /**
     * A normalization that only deduplicates an upsert source by key.
     *
     * @param key the columns the normalization is keyed by, the source's primary key
     * @param input what the normalization reads, below the exchange that hashes it by its key
     */
    public record UpsertNormalization(ImmutableBitSet key, RelNode input) {}

    /**
     * The normalization {@code node} is, if it is one that passes on the upserts of its source
     * without UPDATE_BEFORE messages and does nothing else: no filter evaluated in it, no
     * deduplication of a changelog asked for ({@code table.exec.source.cdc-events-duplicate}), and
     * only projections, watermark assigners and exchanges between it and its table source scan.
     * Empty for any other node.
     */
    public static Optional<UpsertNormalization> upsertNormalization(RelNode node) {
        if (!(node instanceof StreamPhysicalChangelogNormalize)) {
            return Optional.empty();
        }
        StreamPhysicalChangelogNormalize normalize = (StreamPhysicalChangelogNormalize) node;
        if (normalize.filterCondition() != null
                || !UpdateKindTrait.ONLY_UPDATE_AFTER()
                        .equals(normalize.getTraitSet().getTrait(UpdateKindTraitDef.INSTANCE()))
                || ShortcutUtils.unwrapTableConfig(normalize)
                        .get(ExecutionConfigOptions.TABLE_EXEC_SOURCE_CDC_EVENTS_DUPLICATE)
                || !readsAScanOnly(normalize.getInput())) {
            return Optional.empty();
        }
        RelNode input = normalize.getInput();
        if (input instanceof StreamPhysicalExchange) {
            input = input.getInput(0);
        }
        return Optional.of(
                new UpsertNormalization(ImmutableBitSet.of(normalize.uniqueKeys()), input));
    }

    /**
     * The input of a consumer that takes upserts and deletes by {@code keys} (positions in {@code
     * input}'s row), without the normalization it reads, if that is an {@link #upsertNormalization}
     * keyed by exactly those columns. Between the consumer and the normalization there may be
     * exchanges, watermark assigners and projections (Flink puts the rowtime's cast above the
     * normalization when the watermark is pushed into the scan); they stay, now reading what the
     * normalization read, with its changelog mode. Empty where the input has no such normalization,
     * or a projection computes a key column.
     */
    public static Optional<RelNode> withoutUpsertNormalization(
            RelNode input, ImmutableBitSet keys) {
        Optional<UpsertNormalization> normalization = upsertNormalization(input);
        if (normalization.isPresent()) {
            return normalization
                    .filter(upsert -> upsert.key().equals(keys))
                    .map(UpsertNormalization::input);
        }
        Optional<ImmutableBitSet> keysBelow;
        if (input instanceof StreamPhysicalExchange
                || input instanceof StreamPhysicalWatermarkAssigner) {
            keysBelow = Optional.of(keys);
        } else if (isProjection(input)) {
            keysBelow = projectedFrom((StreamPhysicalCalcBase) input, keys);
        } else {
            keysBelow = Optional.empty();
        }
        return keysBelow
                .flatMap(below -> withoutUpsertNormalization(input.getInput(0), below))
                .map(below -> onto(input, below));
    }

    /** The columns of the calc's input that {@code keys} of its output are, if all are copied. */
    private static Optional<ImmutableBitSet> projectedFrom(
            StreamPhysicalCalcBase calc, ImmutableBitSet keys) {
        RexProgram program = calc.getProgram();
        List<RexLocalRef> projects = program.getProjectList();
        ImmutableBitSet.Builder below = ImmutableBitSet.builder();
        for (int key : keys) {
            RexNode expression = program.expandLocalRef(projects.get(key));
            if (!(expression instanceof RexInputRef)) {
                return Optional.empty();
            }
            below.set(((RexInputRef) expression).getIndex());
        }
        return Optional.of(below.build());
    }

    /** {@code node} reading {@code input} instead, with the changelog traits of {@code input}. */
    private static RelNode onto(RelNode node, RelNode input) {
        RelTraitSet changelog = input.getTraitSet();
        RelTraitSet traits =
                node.getTraitSet()
                        .replace(changelog.getTrait(ModifyKindSetTraitDef.INSTANCE()))
                        .replace(changelog.getTrait(UpdateKindTraitDef.INSTANCE()))
                        .replace(changelog.getTrait(DeleteKindTraitDef.INSTANCE()));
        return node.copy(traits, List.of(input));
    }

    private static boolean isProjection(RelNode node) {
        return node instanceof StreamPhysicalCalcBase
                && ((StreamPhysicalCalcBase) node).getProgram().getCondition() == null;
    }

    private static boolean readsAScanOnly(RelNode node) {
        if (node instanceof StreamPhysicalTableSourceScan) {
            return true;
        }
        boolean passesRowsOn =
                node instanceof StreamPhysicalExchange
                        || node instanceof StreamPhysicalWatermarkAssigner
                        || isProjection(node);
        return passesRowsOn && readsAScanOnly(node.getInput(0));
    }
}
