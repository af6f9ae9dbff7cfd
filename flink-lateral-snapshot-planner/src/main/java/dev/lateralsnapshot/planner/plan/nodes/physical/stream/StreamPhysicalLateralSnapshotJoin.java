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

import dev.lateralsnapshot.config.LateralSnapshotOptions;
import dev.lateralsnapshot.config.LateralSnapshotOptions.BuildDistribution;
import dev.lateralsnapshot.planner.functions.SnapshotArguments;
import dev.lateralsnapshot.planner.internal.ChangelogModes;
import dev.lateralsnapshot.planner.internal.TemporalJoinDisguise;
import dev.lateralsnapshot.planner.plan.nodes.exec.spec.SnapshotJoinSpec;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotBroadcastJoin;
import dev.lateralsnapshot.planner.plan.nodes.exec.stream.StreamExecLateralSnapshotJoin;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideLayout;

import org.apache.flink.table.api.TableException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.plan.metadata.FlinkRelMetadataQuery;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.InputProperty;
import org.apache.flink.table.planner.plan.nodes.exec.spec.JoinSpec;
import org.apache.flink.table.planner.utils.ShortcutUtils;
import org.apache.flink.types.RowKind;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.util.ImmutableBitSet;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The LATERAL SNAPSHOT join as a stream physical node; EXPLAIN prints it as {@code
 * LateralSnapshotJoin(joinType=[...], where=[...], select=[...], on_time=[...], ...)}.
 *
 * <p>Why it is a {@link TemporalJoinDisguise}: the optimizer programs after physical planning visit
 * the plan with pattern matches over Flink's own node classes and reject any other class. As a
 * temporal join subclass the node passes them, and the non-determinism check treats it as the join
 * it is: it requires every column of an updating build input to be deterministic unless the
 * operator keeps one build row per key and retracts by that key ({@link #retractionKeys}). Only the
 * changelog mode inference would treat it wrongly (it would strip the UPDATE_BEFORE messages the
 * operator needs to retract build rows), so during that inference the node is presented as a {@link
 * ChangelogInferenceNode}.
 *
 * <p>The node decides how the operator keeps the build side ({@link BuildSideLayout}) from the
 * changelog mode and the upsert keys its build input ends up with.
 *
 * <p>With the {@link BuildDistribution#BROADCAST broadcast} build distribution EXPLAIN adds {@code
 * distribution=[broadcast]}, the inputs have no exchange, and the node translates to {@link
 * StreamExecLateralSnapshotBroadcastJoin}, which broadcasts the build input; with the default
 * {@code hash} it prints and translates as it always has. With {@code
 * table.exec.lateral-snapshot.load-completed-on-caught-up} EXPLAIN adds {@code
 * load_completed_on_caught_up=[true]}.
 */
public class StreamPhysicalLateralSnapshotJoin extends TemporalJoinDisguise {

    private final SnapshotArguments arguments;

    private final BuildDistribution buildDistribution;

    private final boolean loadCompletedOnCaughtUp;

    public StreamPhysicalLateralSnapshotJoin(
            RelOptCluster cluster,
            RelTraitSet traitSet,
            RelNode probe,
            RelNode build,
            RexNode condition,
            JoinRelType joinType,
            SnapshotArguments arguments,
            BuildDistribution buildDistribution,
            boolean loadCompletedOnCaughtUp) {
        super(cluster, traitSet, probe, build, condition, joinType);
        this.arguments = arguments;
        this.buildDistribution = buildDistribution;
        this.loadCompletedOnCaughtUp = loadCompletedOnCaughtUp;
    }

    public SnapshotArguments getArguments() {
        return arguments;
    }

    public BuildDistribution getBuildDistribution() {
        return buildDistribution;
    }

    @Override
    public Join copy(
            RelTraitSet traitSet,
            RexNode condition,
            RelNode probe,
            RelNode build,
            JoinRelType joinType,
            boolean semiJoinDone) {
        return new StreamPhysicalLateralSnapshotJoin(
                getCluster(),
                traitSet,
                probe,
                build,
                condition,
                joinType,
                arguments,
                buildDistribution,
                loadCompletedOnCaughtUp);
    }

    @Override
    public boolean requireWatermark() {
        // The build watermark drives the load phase and the application of build changes.
        return true;
    }

    @Override
    public RelWriter explainTerms(RelWriter pw) {
        return arguments
                .explainTerms(super.explainTerms(pw), getRight().getRowType().getFieldNames())
                .itemIf(
                        "distribution",
                        buildDistribution.value(),
                        buildDistribution == BuildDistribution.BROADCAST)
                .itemIf("load_completed_on_caught_up", true, loadCompletedOnCaughtUp);
    }

    @Override
    public ExecNode<?> translateToExecNode() {
        JoinSpec spec = joinSpec();
        SnapshotJoinSpec snapshotJoinSpec =
                SnapshotJoinSpec.planned(
                        arguments.getOnTimeIndex(),
                        arguments.getLoadCompletedTime(),
                        arguments.isLoadCompletedTimeGiven(),
                        arguments.getLoadCompletedIdleTimeout(),
                        arguments.getStateTtl(),
                        loadCompletedOnCaughtUp,
                        buildSideLayout(spec));
        if (buildDistribution == BuildDistribution.BROADCAST) {
            return new StreamExecLateralSnapshotBroadcastJoin(
                    spec,
                    snapshotJoinSpec,
                    LateralSnapshotOptions.broadcastBuildRowsWarningThreshold(
                            ShortcutUtils.unwrapTableConfig(this)),
                    InputProperty.DEFAULT,
                    InputProperty.builder()
                            .requiredDistribution(InputProperty.BROADCAST_DISTRIBUTION)
                            .build(),
                    FlinkTypeFactory.toLogicalRowType(getRowType()),
                    getRelDetailedDescription());
        }
        return new StreamExecLateralSnapshotJoin(
                spec,
                snapshotJoinSpec,
                InputProperty.DEFAULT,
                InputProperty.DEFAULT,
                FlinkTypeFactory.toLogicalRowType(getRowType()),
                getRelDetailedDescription());
    }

    /**
     * The build rows are retracted by the keys of {@link #oneRowPerKeyKeys}, or by their whole
     * value where there is none; probe rows are never retracted, the probe input being append-only.
     */
    @Override
    protected List<int[]> retractionKeys(RelNode input, int[] joinKeys) {
        if (input != getRight()) {
            return List.of();
        }
        return oneRowPerKeyKeys(joinSpec()).stream()
                .map(ImmutableBitSet::toArray)
                .collect(Collectors.toList());
    }

    private BuildSideLayout buildSideLayout(JoinSpec spec) {
        return oneRowPerKeyKeys(spec).isEmpty()
                ? BuildSideLayout.MULTISET
                : BuildSideLayout.ONE_ROW_PER_KEY;
    }

    /**
     * The upsert keys of the build input that lie within the equality keys: with one, the operator
     * keeps one build row per key and retracts by key. One build row per key is possible when there
     * is such a key, and required when the build input is an upsert changelog: its updates carry no
     * UPDATE_BEFORE and can only replace the row of their key.
     */
    private Set<ImmutableBitSet> oneRowPerKeyKeys(JoinSpec spec) {
        RelNode build = getRight();
        ChangelogMode buildMode =
                ChangelogModes.of(build)
                        .orElseThrow(
                                () ->
                                        new TableException(
                                                "The changelog mode of the build input of a"
                                                        + " LATERAL SNAPSHOT join is unknown."
                                                        + " This is a bug."));
        boolean upsert =
                buildMode.contains(RowKind.UPDATE_AFTER)
                        && !buildMode.contains(RowKind.UPDATE_BEFORE);
        ImmutableBitSet joinKeys = ImmutableBitSet.of(spec.getRightKeys());
        FlinkRelMetadataQuery metadata =
                FlinkRelMetadataQuery.reuseOrCreate(getCluster().getMetadataQuery());
        // A broadcast build input has no exchange here: every subtask receives all of it.
        Set<ImmutableBitSet> upsertKeys =
                buildDistribution == BuildDistribution.BROADCAST
                        ? metadata.getUpsertKeys(build)
                        : metadata.getUpsertKeysInKeyGroupRange(build, spec.getRightKeys());
        Set<ImmutableBitSet> covered =
                upsertKeys == null
                        ? Set.of()
                        : upsertKeys.stream()
                                .filter(joinKeys::contains)
                                .collect(Collectors.toSet());
        if (upsert && covered.isEmpty()) {
            throw new TableException(
                    String.format(
                            "The build input of a LATERAL SNAPSHOT join is an upsert changelog"
                                    + " (%s), but none of its upsert keys %s lies within the join"
                                    + " keys %s. This is a bug.",
                            buildMode, upsertKeys, joinKeys));
        }
        return covered;
    }
}
