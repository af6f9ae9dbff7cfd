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
import dev.lateralsnapshot.planner.plan.nodes.exec.spec.SnapshotJoinSpec;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideLayout;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinOperator;
import dev.lateralsnapshot.runtime.operators.join.snapshot.broadcast.BroadcastDistribution;

import org.apache.flink.FlinkVersion;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.transformations.PartitionTransformation;
import org.apache.flink.streaming.runtime.partitioner.BroadcastPartitioner;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecEdge;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeMetadata;
import org.apache.flink.table.planner.plan.nodes.exec.InputProperty;
import org.apache.flink.table.planner.plan.nodes.exec.spec.JoinSpec;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.planner.plan.utils.KeySelectorUtil;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.annotation.JsonCreator;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.annotation.JsonIgnore;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.annotation.JsonProperty;

import javax.annotation.Nullable;

import java.util.List;

import static org.apache.flink.util.Preconditions.checkArgument;

/**
 * Translates a LATERAL SNAPSHOT join whose build side is broadcast ({@code
 * table.exec.lateral-snapshot.build-distribution} = {@code broadcast}) into a non-keyed two-input
 * transformation running {@link LateralSnapshotJoinOperator} with a {@link BroadcastDistribution}:
 * input 1 is the probe side, taken as it arrives, input 2 the build side, sent to every subtask.
 * The join runs at the parallelism of the probe input, with or without equality keys; the operator
 * finds the build rows of a probe row with the key selectors of the equality keys itself.
 *
 * <h2>Compiled plans</h2>
 *
 * <p>The node has the properties of {@link StreamExecLateralSnapshotJoin} and {@value
 * #FIELD_NAME_BUILD_ROWS_WARNING_THRESHOLD}, but a type of its own, {@value #TYPE}. Flink 2.4 has
 * no broadcast variant of the join: with the type of the hash-partitioned node it would load such a
 * plan and run the join on a build side that each subtask sees only a part of, missing matches
 * without a word. With a type it does not know, it refuses to load the plan.
 */
@ExecNodeMetadata(
        name = StreamExecLateralSnapshotBroadcastJoin.NAME,
        version = StreamExecLateralSnapshotBroadcastJoin.VERSION,
        producedTransformations =
                StreamExecLateralSnapshotBroadcastJoin.BROADCAST_JOIN_TRANSFORMATION,
        minPlanVersion = FlinkVersion.v2_3,
        minStateVersion = FlinkVersion.v2_3)
public class StreamExecLateralSnapshotBroadcastJoin extends StreamExecLateralSnapshotJoin {

    /** The name of the exec node; this library's own. */
    public static final String NAME = "stream-exec-lateral-snapshot-broadcast-join";

    public static final int VERSION = 1;

    /** The type of the node in a compiled plan. */
    public static final String TYPE = NAME + "_" + VERSION;

    /** The transformation name in Flink's uid pattern ({@code [a-z-]+}). */
    public static final String BROADCAST_JOIN_TRANSFORMATION = "lateral-snapshot-broadcast-join";

    /** The operator name of both variants of the join. */
    private static final String LATERAL_SNAPSHOT_JOIN_NAME = "LateralSnapshotJoin";

    public static final String FIELD_NAME_BUILD_ROWS_WARNING_THRESHOLD =
            "lateralSnapshotBuildRowsWarningThreshold";

    /** Build rows per subtask above which the operator warns; 0 for never. */
    @JsonProperty(FIELD_NAME_BUILD_ROWS_WARNING_THRESHOLD)
    private final long buildRowsWarningThreshold;

    /**
     * The node of a planned join.
     *
     * @param buildRowsWarningThreshold build rows per subtask, 0 for no warning
     */
    public StreamExecLateralSnapshotBroadcastJoin(
            JoinSpec joinSpec,
            SnapshotJoinSpec snapshotJoinSpec,
            long buildRowsWarningThreshold,
            InputProperty probeInputProperty,
            InputProperty buildInputProperty,
            RowType outputType,
            String description) {
        this(
                ExecNodeContexts.newNodeId(),
                TYPE,
                // The node consumes no option: its arguments and options are folded at planning.
                new Configuration(),
                joinSpec,
                snapshotJoinSpec,
                buildRowsWarningThreshold,
                null,
                List.of(probeInputProperty, buildInputProperty),
                outputType,
                description);
    }

    /** The node as a compiled plan holds it. */
    @JsonCreator
    public StreamExecLateralSnapshotBroadcastJoin(
            @JsonProperty(FIELD_NAME_ID) int id,
            @JsonProperty(FIELD_NAME_TYPE) String type,
            @JsonProperty(FIELD_NAME_CONFIGURATION) ReadableConfig persistedConfig,
            @JsonProperty(FIELD_NAME_JOIN_SPEC) JoinSpec joinSpec,
            @JsonProperty(FIELD_NAME_RIGHT_TIME_ATTRIBUTE_INDEX) int rightTimeAttributeIndex,
            @JsonProperty(FIELD_NAME_LOAD_COMPLETED_CONDITION) String loadCompletedCondition,
            @JsonProperty(FIELD_NAME_LOAD_COMPLETED_TIME) long loadCompletedTime,
            @JsonProperty(FIELD_NAME_LOAD_COMPLETED_IDLE_TIMEOUT_MS) @Nullable
                    Long loadCompletedIdleTimeoutMs,
            @JsonProperty(FIELD_NAME_STATE_TTL_MS) @Nullable Long stateTtlMs,
            @JsonProperty(FIELD_NAME_LOAD_COMPLETED_ON_CAUGHT_UP) @Nullable
                    Boolean loadCompletedOnCaughtUp,
            @JsonProperty(FIELD_NAME_BUILD_SIDE_LAYOUT) @Nullable BuildSideLayout buildSideLayout,
            @JsonProperty(FIELD_NAME_BUILD_ROWS_WARNING_THRESHOLD) long buildRowsWarningThreshold,
            @JsonProperty(FIELD_NAME_INPUT_PROPERTIES) List<InputProperty> inputProperties,
            @JsonProperty(FIELD_NAME_OUTPUT_TYPE) RowType outputType,
            @JsonProperty(FIELD_NAME_DESCRIPTION) String description) {
        this(
                id,
                type,
                persistedConfig,
                joinSpec,
                new SnapshotJoinSpec(
                        rightTimeAttributeIndex,
                        loadCompletedCondition,
                        loadCompletedTime,
                        loadCompletedIdleTimeoutMs,
                        stateTtlMs,
                        loadCompletedOnCaughtUp,
                        buildSideLayout),
                buildRowsWarningThreshold,
                null,
                inputProperties,
                outputType,
                description);
    }

    /** Every node of the broadcast join, planned, read from a plan or with a calc fused. */
    private StreamExecLateralSnapshotBroadcastJoin(
            int id,
            String type,
            ReadableConfig persistedConfig,
            JoinSpec joinSpec,
            SnapshotJoinSpec snapshotJoinSpec,
            long buildRowsWarningThreshold,
            @Nullable FusedCalc fusedCalc,
            List<InputProperty> inputProperties,
            RowType outputType,
            String description) {
        super(
                id,
                type,
                persistedConfig,
                joinSpec,
                snapshotJoinSpec,
                fusedCalc,
                inputProperties,
                outputType,
                description);
        checkArgument(
                buildRowsWarningThreshold >= 0,
                "The %s must not be negative, but is %s.",
                FIELD_NAME_BUILD_ROWS_WARNING_THRESHOLD,
                buildRowsWarningThreshold);
        this.buildRowsWarningThreshold = buildRowsWarningThreshold;
    }

    @Override
    protected StreamExecLateralSnapshotBroadcastJoin withFusedCalc(
            FusedCalc calc, RowType outputType, String description) {
        return new StreamExecLateralSnapshotBroadcastJoin(
                getId(),
                getTypeAsString(),
                getPersistedConfig(),
                getJoinSpec(),
                getSnapshotJoinSpec(),
                buildRowsWarningThreshold,
                calc,
                getInputProperties(),
                outputType,
                description);
    }

    /** Build rows per subtask above which the operator warns; 0 for never. */
    @JsonIgnore
    public long getBuildRowsWarningThreshold() {
        return buildRowsWarningThreshold;
    }

    /**
     * The operator's name in the Web UI, in the job graph and in metric scopes: the join's, as for
     * the hash-partitioned join, rather than one derived from this class's name.
     */
    @Override
    @JsonIgnore
    protected String getSimplifiedName() {
        return LATERAL_SNAPSHOT_JOIN_NAME;
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
        JoinSpec joinSpec = getJoinSpec();

        // Not state keys: the operator is not keyed, it indexes the build rows by these keys.
        RowDataKeySelector probeKeySelector =
                KeySelectorUtil.getRowDataSelector(
                        classLoader, joinSpec.getLeftKeys(), InternalTypeInfo.of(probeType));
        RowDataKeySelector buildKeySelector =
                KeySelectorUtil.getRowDataSelector(
                        classLoader, joinSpec.getRightKeys(), InternalTypeInfo.of(buildType));
        Transformation<RowData> probeTransform =
                (Transformation<RowData>) probeEdge.translateToPlan(planner);
        // The build input reaches the join through no exchange node: Flink 2.3's stream planner has
        // none for broadcast. Its transformation is broadcast here instead.
        Transformation<RowData> buildTransform =
                new PartitionTransformation<>(
                        (Transformation<RowData>) buildEdge.translateToPlan(planner),
                        new BroadcastPartitioner<>());
        LateralSnapshotJoinOperator operator =
                new LateralSnapshotJoinOperator(
                        operatorParameters(
                                config,
                                classLoader,
                                probeType,
                                buildType,
                                buildTransform,
                                new BroadcastDistribution(
                                        probeKeySelector,
                                        buildKeySelector,
                                        buildRowsWarningThreshold)));
        // The probe input keeps its partitioning: at the same parallelism its rows are forwarded,
        // at another the stream graph rebalances them, as between any two operators.
        return ExecNodeUtil.createTwoInputTransformation(
                probeTransform,
                buildTransform,
                createTransformationMeta(BROADCAST_JOIN_TRANSFORMATION, config),
                operator,
                InternalTypeInfo.of((RowType) getOutputType()),
                probeTransform.getParallelism(),
                false);
    }
}
