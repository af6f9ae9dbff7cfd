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

import dev.lateralsnapshot.planner.SnapshotTestEnvironments;
import dev.lateralsnapshot.planner.plan.nodes.physical.stream.StreamPhysicalLateralSnapshotJoin;
import dev.lateralsnapshot.testutils.environments.TableEnvironmentExtension;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.RowKind;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelVisitor;
import org.apache.calcite.rel.logical.LogicalValues;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;

import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.SECTION_1_QUERY;
import static dev.lateralsnapshot.planner.SnapshotTestEnvironments.optimizedPlan;
import static org.assertj.core.api.Assertions.assertThat;

/** Guards for {@link ChangelogModes}: the changelog modes Flink's inference assigns, read back. */
class ChangelogModesTest {

    @RegisterExtension
    static final TableEnvironmentExtension ENVIRONMENT =
            SnapshotTestEnvironments.streamingPerTest();

    @Test
    void modesOfAnOptimizedPlan(TableEnvironment env) {
        StreamPhysicalLateralSnapshotJoin join = onlyJoin(optimizedPlan(env, SECTION_1_QUERY));

        assertThat(ChangelogModes.of(join))
                .as("the changelog mode of a node after Flink's changelog mode inference")
                .hasValue(ChangelogMode.insertOnly());
        assertThat(ChangelogModes.of(join.getRight()))
                .as("the changelog mode of the build input after the inference")
                .hasValueSatisfying(
                        mode ->
                                assertThat(mode.getContainedKinds())
                                        .containsExactlyInAnyOrder(
                                                RowKind.INSERT,
                                                RowKind.UPDATE_BEFORE,
                                                RowKind.UPDATE_AFTER,
                                                RowKind.DELETE));
    }

    @Test
    void noModeForANodeOutsideTheStreamConvention(TableEnvironment env) {
        RelNode values =
                LogicalValues.createOneRow(optimizedPlan(env, SECTION_1_QUERY).getCluster());
        assertThat(ChangelogModes.of(values)).isEmpty();
    }

    private static StreamPhysicalLateralSnapshotJoin onlyJoin(RelNode plan) {
        List<StreamPhysicalLateralSnapshotJoin> joins = new ArrayList<>();
        new RelVisitor() {
            @Override
            public void visit(RelNode node, int ordinal, RelNode parent) {
                if (node instanceof StreamPhysicalLateralSnapshotJoin) {
                    joins.add((StreamPhysicalLateralSnapshotJoin) node);
                }
                super.visit(node, ordinal, parent);
            }
        }.go(plan);
        assertThat(joins).hasSize(1);
        return joins.get(0);
    }
}
