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

import dev.lateralsnapshot.planner.connector.source.BacklogReportingSources;
import dev.lateralsnapshot.planner.internal.ExecNodeCompilation;
import dev.lateralsnapshot.planner.internal.ExecNodeContexts;
import dev.lateralsnapshot.planner.plan.nodes.exec.spec.SnapshotJoinSpec;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideDistribution;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideLayout;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinOperator;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinParameters;
import dev.lateralsnapshot.runtime.operators.join.snapshot.keyed.HashDistribution;

import org.apache.flink.FlinkVersion;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.transformations.TwoInputTransformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecEdge;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeMetadata;
import org.apache.flink.table.planner.plan.nodes.exec.InputProperty;
import org.apache.flink.table.planner.plan.nodes.exec.SingleTransformationTranslator;
import org.apache.flink.table.planner.plan.nodes.exec.spec.JoinSpec;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.planner.plan.utils.JoinUtil;
import org.apache.flink.table.planner.plan.utils.KeySelectorUtil;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;
import org.apache.flink.table.runtime.operators.join.FlinkJoinType;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.annotation.JsonCreator;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.annotation.JsonIgnore;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.annotation.JsonInclude;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.annotation.JsonProperty;

import org.apache.calcite.rex.RexNode;

import javax.annotation.Nullable;

import java.util.List;

import static org.apache.flink.util.Preconditions.checkArgument;
import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * Translates a LATERAL SNAPSHOT join into a keyed two-input transformation running {@link
 * LateralSnapshotJoinOperator}: input 1 is the probe side, input 2 the build side, both keyed by
 * the equality keys of the join condition. Without equality keys both inputs arrive on one subtask
 * (the physical node asks for singleton exchanges) and the operator is keyed by the empty key, at
 * parallelism 1. {@link StreamExecLateralSnapshotBroadcastJoin} translates the same join with a
 * broadcast build side.
 *
 * <h2>Compiled plans</h2>
 *
 * <p>A compiled plan holds the node as Flink 2.4 holds its own LATERAL SNAPSHOT join: the type
 * {@value #TYPE} and the properties {@value #FIELD_NAME_JOIN_SPEC}, {@value
 * #FIELD_NAME_RIGHT_TIME_ATTRIBUTE_INDEX}, {@value #FIELD_NAME_LOAD_COMPLETED_CONDITION}, {@value
 * #FIELD_NAME_LOAD_COMPLETED_TIME}, and, only when set, {@value
 * #FIELD_NAME_LOAD_COMPLETED_IDLE_TIMEOUT_MS} and {@value #FIELD_NAME_STATE_TTL_MS}, so that Flink
 * 2.4 can run a plan compiled with this library. What only this library needs has a name of its
 * own, which Flink ignores like any unknown property: {@value #FIELD_NAME_BUILD_SIDE_LAYOUT}, and,
 * only when set, {@value #FIELD_NAME_LOAD_COMPLETED_ON_CAUGHT_UP}. A projection fused into the join
 * is never in a plan (see {@code LateralSnapshotJoinCalcFusion}). Every argument is in the plan
 * with the value it had at planning: a default {@code load_completed_time} (the wall-clock time of
 * planning, {@code compile_time}) does not move when the plan runs later. Flink can read the node
 * from a plan once {@code ExecNodeRegistry} has registered this class, which every activation of
 * the library does ({@code LateralSnapshot.install} and the drop-in jar's planner factory).
 */
@ExecNodeMetadata(
        name = StreamExecLateralSnapshotJoin.NAME,
        version = StreamExecLateralSnapshotJoin.VERSION,
        producedTransformations =
                StreamExecLateralSnapshotJoin.LATERAL_SNAPSHOT_JOIN_TRANSFORMATION,
        // Flink 2.3 has no v2_4; the node is written the same way for both.
        minPlanVersion = FlinkVersion.v2_3,
        minStateVersion = FlinkVersion.v2_3)
public class StreamExecLateralSnapshotJoin extends ExecNodeBase<RowData>
        implements StreamExecNode<RowData>, SingleTransformationTranslator<RowData> {

    /** The name of the exec node, Flink 2.4's for the same join. */
    public static final String NAME = "stream-exec-lateral-snapshot-join";

    public static final int VERSION = 1;

    /** The type of the node in a compiled plan. */
    public static final String TYPE = NAME + "_" + VERSION;

    /** The transformation name in Flink's uid pattern ({@code [a-z-]+}). */
    public static final String LATERAL_SNAPSHOT_JOIN_TRANSFORMATION = "lateral-snapshot-join";

    public static final String FIELD_NAME_JOIN_SPEC = "joinSpec";
    public static final String FIELD_NAME_RIGHT_TIME_ATTRIBUTE_INDEX = "rightTimeAttributeIndex";
    public static final String FIELD_NAME_LOAD_COMPLETED_CONDITION = "loadCompletedCondition";
    public static final String FIELD_NAME_LOAD_COMPLETED_TIME = "loadCompletedTime";
    public static final String FIELD_NAME_LOAD_COMPLETED_IDLE_TIMEOUT_MS =
            "loadCompletedIdleTimeoutMs";
    public static final String FIELD_NAME_STATE_TTL_MS = "stateTtlMs";

    /** This library's own: how the operator keeps the build side. */
    public static final String FIELD_NAME_BUILD_SIDE_LAYOUT = "lateralSnapshotBuildSideLayout";

    /** This library's own: whether the end of the build input's backlog ends the load phase. */
    public static final String FIELD_NAME_LOAD_COMPLETED_ON_CAUGHT_UP =
            "lateralSnapshotLoadCompletedOnCaughtUp";

    @JsonProperty(FIELD_NAME_JOIN_SPEC)
    private final JoinSpec joinSpec;

    /** The other properties of the plan, written and read one by one through their getters. */
    @JsonIgnore private final SnapshotJoinSpec snapshotJoinSpec;

    /** A calc whose rows the join emits instead of its own; null for none. */
    @JsonIgnore @Nullable private final FusedCalc fusedCalc;

    /** The node of a planned join. */
    public StreamExecLateralSnapshotJoin(
            JoinSpec joinSpec,
            SnapshotJoinSpec snapshotJoinSpec,
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
                null,
                List.of(probeInputProperty, buildInputProperty),
                outputType,
                description);
    }

    /** The node as a compiled plan holds it, Flink 2.4's or this library's. */
    @JsonCreator
    public StreamExecLateralSnapshotJoin(
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
                null,
                inputProperties,
                outputType,
                description);
    }

    /**
     * Every node of the join, planned, read from a plan or with a calc fused, and of the broadcast
     * join, is made here.
     */
    protected StreamExecLateralSnapshotJoin(
            int id,
            String type,
            ReadableConfig persistedConfig,
            JoinSpec joinSpec,
            SnapshotJoinSpec snapshotJoinSpec,
            @Nullable FusedCalc fusedCalc,
            List<InputProperty> inputProperties,
            RowType outputType,
            String description) {
        super(
                id,
                ExecNodeContexts.of(type),
                persistedConfig,
                inputProperties,
                outputType,
                description);
        checkArgument(inputProperties.size() == 2, "A join has two inputs.");
        FlinkJoinType joinType = checkNotNull(joinSpec).getJoinType();
        checkArgument(
                joinType == FlinkJoinType.INNER || joinType == FlinkJoinType.LEFT,
                "Unsupported join type %s.",
                joinType);
        this.joinSpec = joinSpec;
        this.snapshotJoinSpec = checkNotNull(snapshotJoinSpec);
        this.fusedCalc = fusedCalc;
    }

    /**
     * This join with a calc that consumes its rows fused into it: the same node, of the same id,
     * type and version, so that its operator keeps its uid and state, whose output is the calc's.
     * The node has no input edges yet.
     *
     * @param projection the calc's projection, over this join's output row
     * @param condition the calc's filter, over this join's output row; null for none
     * @param outputType the calc's output type
     * @param calcDescription the calc's description, which the fused node's description ends with
     */
    public final StreamExecLateralSnapshotJoin fuseCalc(
            List<RexNode> projection,
            @Nullable RexNode condition,
            RowType outputType,
            String calcDescription) {
        checkArgument(fusedCalc == null, "The join has a fused calc already.");
        StreamExecLateralSnapshotJoin fused =
                withFusedCalc(
                        new FusedCalc(projection, condition),
                        outputType,
                        FusedCalc.describe(getDescription(), calcDescription));
        fused.setCompiled(ExecNodeCompilation.isCompiled(this));
        return fused;
    }

    /**
     * A copy of this node, of its id, with the fused calc, output type and description; a subclass
     * makes a copy of its own class.
     */
    protected StreamExecLateralSnapshotJoin withFusedCalc(
            FusedCalc calc, RowType outputType, String description) {
        return new StreamExecLateralSnapshotJoin(
                getId(),
                getTypeAsString(),
                getPersistedConfig(),
                joinSpec,
                snapshotJoinSpec,
                calc,
                getInputProperties(),
                outputType,
                description);
    }

    /** Whether a calc is fused into the join. */
    @JsonIgnore
    public boolean hasFusedCalc() {
        return fusedCalc != null;
    }

    @JsonIgnore
    protected JoinSpec getJoinSpec() {
        return joinSpec;
    }

    @JsonIgnore
    protected SnapshotJoinSpec getSnapshotJoinSpec() {
        return snapshotJoinSpec;
    }

    /** How the operator keeps the build side; decided by the physical node. */
    @JsonProperty(FIELD_NAME_BUILD_SIDE_LAYOUT)
    public BuildSideLayout getBuildSideLayout() {
        return snapshotJoinSpec.buildSideLayout();
    }

    /** Position of the {@code on_time} column in the build rows. */
    @JsonProperty(FIELD_NAME_RIGHT_TIME_ATTRIBUTE_INDEX)
    public int getBuildTimeIndex() {
        return snapshotJoinSpec.buildTimeIndex();
    }

    @JsonProperty(FIELD_NAME_LOAD_COMPLETED_CONDITION)
    protected String getLoadCompletedCondition() {
        return snapshotJoinSpec.loadCompletedCondition();
    }

    @JsonProperty(FIELD_NAME_LOAD_COMPLETED_TIME)
    protected long getLoadCompletedTime() {
        return snapshotJoinSpec.loadCompletedTime();
    }

    /** Null for none: Flink 2.4 would read 0 as a timeout of 0 ms. */
    @JsonProperty(FIELD_NAME_LOAD_COMPLETED_IDLE_TIMEOUT_MS)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Nullable
    protected Long getLoadCompletedIdleTimeoutMs() {
        return snapshotJoinSpec.loadCompletedIdleTimeoutMs();
    }

    @JsonProperty(FIELD_NAME_STATE_TTL_MS)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Nullable
    protected Long getStateTtlMs() {
        return snapshotJoinSpec.stateTtlMs();
    }

    /** Null unless set: a plan of a join planned without the option stays as it was. */
    @JsonProperty(FIELD_NAME_LOAD_COMPLETED_ON_CAUGHT_UP)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Nullable
    protected Boolean getLoadCompletedOnCaughtUp() {
        return snapshotJoinSpec.loadCompletedOnCaughtUp() ? Boolean.TRUE : null;
    }

    /** Whether the end of the build input's backlog also ends the load phase. */
    @JsonIgnore
    public boolean isLoadCompletedOnCaughtUp() {
        return snapshotJoinSpec.loadCompletedOnCaughtUp();
    }

    /**
     * The operator's parameters for this join over inputs of the given types, with the build side
     * distributed as given.
     *
     * @param buildInput the translated build input, whose source may report a backlog
     */
    protected final LateralSnapshotJoinParameters operatorParameters(
            ExecNodeConfig config,
            ClassLoader classLoader,
            RowType probeType,
            RowType buildType,
            Transformation<?> buildInput,
            BuildSideDistribution distribution) {
        boolean leftOuterJoin = joinSpec.getJoinType() == FlinkJoinType.LEFT;
        int buildTimeIndex = snapshotJoinSpec.buildTimeIndex();
        return LateralSnapshotJoinParameters.builder(
                        InternalTypeInfo.of(probeType),
                        InternalTypeInfo.of(buildType),
                        distribution)
                .buildSideLayout(snapshotJoinSpec.buildSideLayout())
                // Without a non-equality part the operator evaluates no condition at all.
                .condition(
                        joinSpec.getNonEquiCondition().isPresent()
                                ? JoinUtil.generateConditionFunction(
                                        config, classLoader, joinSpec, probeType, buildType)
                                : null)
                .leftOuterJoin(leftOuterJoin)
                .filterNullKeys(joinSpec.getFilterNulls())
                .buildTime(
                        buildTimeIndex,
                        LogicalTypeChecks.getPrecision(buildType.getTypeAt(buildTimeIndex)))
                .loadCompletedTime(snapshotJoinSpec.loadCompletedTime())
                .loadCompletedIdleTimeout(snapshotJoinSpec.loadCompletedIdleTimeout())
                .stateTtl(snapshotJoinSpec.stateTtl())
                .loadCompletedOnCaughtUp(snapshotJoinSpec.loadCompletedOnCaughtUp())
                .buildBacklogReported(BacklogReportingSources.reportsBacklog(buildInput))
                .fusedCalc(
                        fusedCalc == null
                                ? null
                                : fusedCalc.generate(
                                        config,
                                        classLoader,
                                        probeType,
                                        buildType,
                                        leftOuterJoin,
                                        (RowType) getOutputType()))
                .build();
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
        Transformation<RowData> probeTransform =
                (Transformation<RowData>) probeEdge.translateToPlan(planner);
        Transformation<RowData> buildTransform =
                (Transformation<RowData>) buildEdge.translateToPlan(planner);
        LateralSnapshotJoinOperator operator =
                new LateralSnapshotJoinOperator(
                        operatorParameters(
                                config,
                                classLoader,
                                probeType,
                                buildType,
                                buildTransform,
                                new HashDistribution()));
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
