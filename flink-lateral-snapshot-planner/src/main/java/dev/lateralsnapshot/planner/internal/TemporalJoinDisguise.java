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

import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalTemporalJoin;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexNode;

import java.util.List;

/**
 * A stream physical join that Flink's programs after physical planning accept. They visit the plan
 * with pattern matches over Flink's own node classes and reject any other class ("Unsupported visit
 * for ..."); as a subclass of the event-time temporal join the node passes them, and the
 * non-determinism check treats it as the join it is. Changelog mode inference is the exception: it
 * would treat the node as a temporal join, so during that inference the node is presented as a
 * {@link ProcessTableFunctionDisguise} instead.
 *
 * <p>What the temporal join would decide from its own condition form, a subclass must decide
 * itself: whether it needs watermarks, how it is copied, and what it translates to. It also says by
 * which keys it retracts the rows of an input ({@link #retractionKeys}): Flink's non-determinism
 * check asks a join for the upsert keys of its inputs ({@code getUpsertKeys}) and, where an input
 * with updates has one, requires only the columns used after the join to be deterministic, and
 * every column otherwise. A join that retracts a row by its whole value must offer no key: with
 * one, a non-deterministic column would pass the check, and the retraction of a row whose column
 * changed its value would miss the row and leave it in the join's state.
 */
public abstract class TemporalJoinDisguise extends StreamPhysicalTemporalJoin {

    protected TemporalJoinDisguise(
            RelOptCluster cluster,
            RelTraitSet traitSet,
            RelNode left,
            RelNode right,
            RexNode condition,
            JoinRelType joinType) {
        super(cluster, traitSet, left, right, condition, joinType);
    }

    @Override
    public abstract boolean requireWatermark();

    @Override
    public abstract Join copy(
            RelTraitSet traitSet,
            RexNode condition,
            RelNode left,
            RelNode right,
            JoinRelType joinType,
            boolean semiJoinDone);

    @Override
    public abstract ExecNode<?> translateToExecNode();

    /**
     * The upsert keys by which the join retracts the rows of {@code input}, one of its inputs,
     * hashed by {@code joinKeys}; empty where it retracts a row by its whole value.
     */
    protected abstract List<int[]> retractionKeys(RelNode input, int[] joinKeys);

    @Override
    public final scala.collection.immutable.List<int[]> getUpsertKeys(
            RelNode input, int[] joinKeys) {
        return JavaScalaConversionUtil.toScala(retractionKeys(input, joinKeys)).toList();
    }
}
