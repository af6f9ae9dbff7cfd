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

package dev.lateralsnapshot.planner.plan.nodes.physical.stream;

import dev.lateralsnapshot.planner.internal.ProcessTableFunctionDisguise;

import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.metadata.RelMetadataQuery;

import java.util.List;

/**
 * A {@link StreamPhysicalLateralSnapshotJoin} as Flink's changelog mode inference should see it,
 * during {@code physical_rewrite} only: a process table function whose table arguments are the
 * probe input (partitioned by the probe keys, inserts only) and the build input (partitioned by the
 * build keys, all changes, with UPDATE_BEFORE if {@code buildRequiresUpdateBefore}). Errors and
 * plans printed during the inference name and show the join. After the inference the join is
 * restored ({@link #toJoin()}) with the changelog traits the inference assigned.
 */
public final class ChangelogInferenceNode extends ProcessTableFunctionDisguise {

    private final StreamPhysicalLateralSnapshotJoin join;

    /**
     * @param join the join this node stands in for, the same in every attempt of the inference;
     *     {@code inputs} are its inputs, possibly disguised themselves
     */
    public ChangelogInferenceNode(
            RelTraitSet traitSet,
            List<RelNode> inputs,
            StreamPhysicalLateralSnapshotJoin join,
            boolean buildRequiresUpdateBefore) {
        super(
                join.getCluster(),
                traitSet,
                inputs,
                join.joinSpec().getLeftKeys(),
                join.joinSpec().getRightKeys(),
                join.getRowType(),
                buildRequiresUpdateBefore);
        this.join = join;
    }

    /** The join this node stands in for. */
    public StreamPhysicalLateralSnapshotJoin getJoin() {
        return join;
    }

    /** The join with this node's traits and inputs. */
    public StreamPhysicalLateralSnapshotJoin toJoin() {
        return (StreamPhysicalLateralSnapshotJoin)
                join.copy(
                        getTraitSet(),
                        join.getCondition(),
                        getInputs().get(0),
                        getInputs().get(1),
                        join.getJoinType(),
                        false);
    }

    @Override
    protected RelNode copyWithInputs(RelTraitSet traitSet, List<RelNode> inputs) {
        return new ChangelogInferenceNode(traitSet, inputs, join, buildRequiresUpdateBefore());
    }

    @Override
    public String getRelTypeName() {
        return join.getRelTypeName();
    }

    @Override
    public RelWriter explainTerms(RelWriter pw) {
        return toJoin().explainTerms(pw);
    }

    @Override
    public double estimateRowCount(RelMetadataQuery mq) {
        return mq.getRowCount(getInputs().get(0));
    }
}
