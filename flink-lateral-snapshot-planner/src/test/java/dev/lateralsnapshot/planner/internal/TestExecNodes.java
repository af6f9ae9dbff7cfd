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

import org.apache.flink.FlinkVersion;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.Configuration;
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
 * Exec nodes for the guard tests of the registry: annotated as Flink's own, and of no use beyond
 * that. A registered node stays registered in the test JVM, so each test that registers one has its
 * own class.
 */
final class TestExecNodes {

    private TestExecNodes() {}

    /** A node with no inputs that is never translated. */
    abstract static class TestExecNode extends ExecNodeBase<RowData> {

        TestExecNode(String type) {
            super(
                    ExecNodeContexts.newNodeId(),
                    ExecNodeContexts.of(type),
                    new Configuration(),
                    List.of(),
                    new RowType(List.of()),
                    type);
        }

        @Override
        protected Transformation<RowData> translateToPlanInternal(
                PlannerBase planner, ExecNodeConfig config) {
            throw new UnsupportedOperationException("A test node is never translated.");
        }
    }

    @ExecNodeMetadata(
            name = "registry-test-listed",
            version = 1,
            minPlanVersion = FlinkVersion.v2_3,
            minStateVersion = FlinkVersion.v2_3)
    static final class Listed extends TestExecNode {
        @JsonCreator
        Listed(@JsonProperty(FIELD_NAME_TYPE) String type) {
            super(type);
        }
    }

    @ExecNodeMetadata(
            name = "registry-test-again",
            version = 1,
            minPlanVersion = FlinkVersion.v2_3,
            minStateVersion = FlinkVersion.v2_3)
    static final class RegisteredAgain extends TestExecNode {
        @JsonCreator
        RegisteredAgain(@JsonProperty(FIELD_NAME_TYPE) String type) {
            super(type);
        }
    }

    @ExecNodeMetadata(
            name = "registry-test-concurrent",
            version = 1,
            minPlanVersion = FlinkVersion.v2_3,
            minStateVersion = FlinkVersion.v2_3)
    static final class RegisteredConcurrently extends TestExecNode {
        @JsonCreator
        RegisteredConcurrently(@JsonProperty(FIELD_NAME_TYPE) String type) {
            super(type);
        }
    }

    @MultipleExecNodeMetadata({
        @ExecNodeMetadata(
                name = "registry-test-versions",
                version = 1,
                minPlanVersion = FlinkVersion.v2_3,
                minStateVersion = FlinkVersion.v2_3),
        @ExecNodeMetadata(
                name = "registry-test-versions",
                version = 2,
                minPlanVersion = FlinkVersion.v2_3,
                minStateVersion = FlinkVersion.v2_3)
    })
    static final class TwoVersions extends TestExecNode {
        @JsonCreator
        TwoVersions(@JsonProperty(FIELD_NAME_TYPE) String type) {
            super(type);
        }
    }

    /** Never registered. */
    @ExecNodeMetadata(
            name = "registry-test-unlisted",
            version = 1,
            minPlanVersion = FlinkVersion.v2_3,
            minStateVersion = FlinkVersion.v2_3)
    static final class Unlisted extends TestExecNode {
        @JsonCreator
        Unlisted(@JsonProperty(FIELD_NAME_TYPE) String type) {
            super(type);
        }
    }
}
