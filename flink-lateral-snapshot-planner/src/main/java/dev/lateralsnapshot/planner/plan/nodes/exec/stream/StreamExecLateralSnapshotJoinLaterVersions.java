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

import org.apache.flink.FlinkVersion;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeMetadata;
import org.apache.flink.table.planner.plan.nodes.exec.MultipleExecNodeMetadata;
import org.apache.flink.table.types.logical.RowType;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.annotation.JsonCreator;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/**
 * The versions of {@link StreamExecLateralSnapshotJoin} after {@value
 * StreamExecLateralSnapshotJoin#VERSION}, which a later release of this library may write into a
 * compiled plan and this one cannot read. Reading a plan with one fails with a message that says
 * so.
 *
 * <p>Flink finds the class of a plan's node by its exact name and version; for any pair it does not
 * know, its own nodes' included, loading fails with a bare {@code NullPointerException}. These
 * versions are therefore registered like the node itself, to this class, which Flink constructs
 * while it reads the plan and which refuses to be constructed.
 */
@MultipleExecNodeMetadata({
    @ExecNodeMetadata(
            name = StreamExecLateralSnapshotJoin.NAME,
            version = 2,
            minPlanVersion = FlinkVersion.v2_3,
            minStateVersion = FlinkVersion.v2_3),
    @ExecNodeMetadata(
            name = StreamExecLateralSnapshotJoin.NAME,
            version = 3,
            minPlanVersion = FlinkVersion.v2_3,
            minStateVersion = FlinkVersion.v2_3),
    @ExecNodeMetadata(
            name = StreamExecLateralSnapshotJoin.NAME,
            version = 4,
            minPlanVersion = FlinkVersion.v2_3,
            minStateVersion = FlinkVersion.v2_3)
})
public final class StreamExecLateralSnapshotJoinLaterVersions extends ExecNodeBase<RowData> {

    /** Fails: Flink calls it for a node of a later version while it reads a plan. */
    @JsonCreator
    public StreamExecLateralSnapshotJoinLaterVersions(@JsonProperty(FIELD_NAME_TYPE) String type) {
        super(
                0,
                ExecNodeContexts.of(type),
                new Configuration(),
                List.of(),
                new RowType(List.of()),
                type);
        throw new TableException(
                String.format(
                        "The compiled plan holds version %d of the LATERAL SNAPSHOT join (%s),"
                                + " but this release of the LATERAL SNAPSHOT join library reads"
                                + " only version %d (%s): the plan was compiled by a later"
                                + " release. Load it with that release, or compile the statement"
                                + " again with this one.",
                        getVersion(),
                        type,
                        StreamExecLateralSnapshotJoin.VERSION,
                        StreamExecLateralSnapshotJoin.TYPE));
    }

    @Override
    protected Transformation<RowData> translateToPlanInternal(
            PlannerBase planner, ExecNodeConfig config) {
        throw new IllegalStateException("A node of a later version is never constructed.");
    }
}
