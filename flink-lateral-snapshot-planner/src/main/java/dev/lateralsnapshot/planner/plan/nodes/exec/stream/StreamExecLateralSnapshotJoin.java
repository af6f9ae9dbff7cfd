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

package dev.lateralsnapshot.planner.plan.nodes.exec.stream;

import dev.lateralsnapshot.planner.internal.ExecNodeContexts;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideLayout;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinOperator;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.transformations.TwoInputTransformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecEdge;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.InputProperty;
import org.apache.flink.table.planner.plan.nodes.exec.SingleTransformationTranslator;
import org.apache.flink.table.planner.plan.nodes.exec.spec.JoinSpec;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.planner.plan.utils.JoinUtil;
import org.apache.flink.table.planner.plan.utils.KeySelectorUtil;
import org.apache.flink.table.runtime.generated.GeneratedJoinCondition;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;
import org.apache.flink.table.runtime.operators.join.FlinkJoinType;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import java.util.List;

import static org.apache.flink.util.Preconditions.checkArgument;
import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * Translates a LATERAL SNAPSHOT join into a keyed two-input transformation running {@link
 * LateralSnapshotJoinOperator}: input 1 is the probe side, input 2 the build side, both keyed by
 * the equality keys of the join condition. Without equality keys both inputs arrive on one subtask
 * (the physical node asks for singleton exchanges) and the operator is keyed by the empty key, at
 * parallelism 1.
 *
 * <p>The node carries no {@code @ExecNodeMetadata}: Flink checks an annotated exec node against its
 * own list of exec nodes and rejects any other (see {@link ExecNodeContexts}). A compiled plan can
 * therefore not be restored with this node.
 */
public class StreamExecLateralSnapshotJoin extends ExecNodeBase<RowData>
        implements StreamExecNode<RowData>, SingleTransformationTranslator<RowData> {

    /** The transformation name in Flink's uid pattern ({@code [a-z-]+}). */
    public static final String LATERAL_SNAPSHOT_JOIN_TRANSFORMATION = "lateral-snapshot-join";

    /** The name of the exec node, as Flink names the type of an exec node with its version. */
    public static final String EXEC_NODE_NAME = "lateral-snapshot-join";

    public static final int EXEC_NODE_VERSION = 1;

    private final JoinSpec joinSpec;
    private final BuildSideLayout buildSideLayout;
    private final int buildTimeIndex;
    private final long loadCompletedTime;
    private final long loadCompletedIdleTimeout;
    private final long stateTtl;

    public StreamExecLateralSnapshotJoin(
            ReadableConfig tableConfig,
            JoinSpec joinSpec,
            BuildSideLayout buildSideLayout,
            int buildTimeIndex,
            long loadCompletedTime,
            long loadCompletedIdleTimeout,
            long stateTtl,
            InputProperty probeInputProperty,
            InputProperty buildInputProperty,
            RowType outputType,
            String description) {
        super(
                ExecNodeContexts.newNodeId(),
                ExecNodeContexts.of(EXEC_NODE_NAME + "_" + EXEC_NODE_VERSION),
                // No option is persisted with the node: without metadata it cannot be compiled.
                new Configuration(),
                List.of(probeInputProperty, buildInputProperty),
                outputType,
                description);
        checkNotNull(tableConfig);
        FlinkJoinType joinType = joinSpec.getJoinType();
        checkArgument(
                joinType == FlinkJoinType.INNER || joinType == FlinkJoinType.LEFT,
                "Unsupported join type %s.",
                joinType);
        this.joinSpec = joinSpec;
        this.buildSideLayout = checkNotNull(buildSideLayout);
        this.buildTimeIndex = buildTimeIndex;
        this.loadCompletedTime = loadCompletedTime;
        this.loadCompletedIdleTimeout = loadCompletedIdleTimeout;
        this.stateTtl = stateTtl;
    }

    /** How the operator keeps the build side; decided by the physical node. */
    public BuildSideLayout getBuildSideLayout() {
        return buildSideLayout;
    }

    /** Position of the {@code on_time} column in the build rows. */
    public int getBuildTimeIndex() {
        return buildTimeIndex;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected Transformation<RowData> translateToPlanInternal(
            PlannerBase planner, ExecNodeConfig config) {
        ExecEdge probeEdge = getInputEdges().get(0);
        ExecEdge buildEdge = getInputEdges().get(1);
        RowType probeType = (RowType) probeEdge.getOutputType();
        RowType buildType = (RowType) buildEdge.getOutputType();
        ClassLoader classLoader = planner.getFlinkContext().getClassLoader();

        // The operator skips the condition altogether when only equality conjuncts exist.
        GeneratedJoinCondition nonEquiCondition =
                joinSpec.getNonEquiCondition().isPresent()
                        ? JoinUtil.generateConditionFunction(
                                config, classLoader, joinSpec, probeType, buildType)
                        : null;
        LateralSnapshotJoinOperator operator =
                new LateralSnapshotJoinOperator(
                        InternalTypeInfo.of(probeType),
                        InternalTypeInfo.of(buildType),
                        nonEquiCondition,
                        joinSpec.getJoinType() == FlinkJoinType.LEFT,
                        joinSpec.getFilterNulls(),
                        buildSideLayout,
                        buildTimeIndex,
                        LogicalTypeChecks.getPrecision(buildType.getTypeAt(buildTimeIndex)),
                        loadCompletedTime,
                        loadCompletedIdleTimeout,
                        stateTtl);

        Transformation<RowData> probeTransform =
                (Transformation<RowData>) probeEdge.translateToPlan(planner);
        Transformation<RowData> buildTransform =
                (Transformation<RowData>) buildEdge.translateToPlan(planner);
        TwoInputTransformation<RowData, RowData, RowData> transform =
                ExecNodeUtil.createTwoInputTransformation(
                        probeTransform,
                        buildTransform,
                        createTransformationMeta(LATERAL_SNAPSHOT_JOIN_TRANSFORMATION, config),
                        operator,
                        InternalTypeInfo.of((RowType) getOutputType()),
                        probeTransform.getParallelism(),
                        false);

        // Both inputs are keyed by the equality keys, in the order of the condition, so that a
        // probe row and the build rows it matches share one key. Without equality keys the key
        // is empty and ExecNodeBase pins the transformation to parallelism 1.
        RowDataKeySelector probeKeySelector =
                KeySelectorUtil.getRowDataSelector(
                        classLoader, joinSpec.getLeftKeys(), InternalTypeInfo.of(probeType));
        RowDataKeySelector buildKeySelector =
                KeySelectorUtil.getRowDataSelector(
                        classLoader, joinSpec.getRightKeys(), InternalTypeInfo.of(buildType));
        transform.setStateKeySelectors(probeKeySelector, buildKeySelector);
        transform.setStateKeyType(probeKeySelector.getProducedType());
        return transform;
    }
}
