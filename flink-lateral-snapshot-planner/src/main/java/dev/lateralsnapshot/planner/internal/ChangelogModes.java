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

import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalRel;
import org.apache.flink.table.planner.plan.utils.ChangelogPlanUtils;
import org.apache.flink.table.planner.utils.JavaScalaConversionUtil;

import org.apache.calcite.rel.RelNode;

import java.util.Optional;

/**
 * The changelog mode that Flink's changelog mode inference assigned to a stream physical node, read
 * from the traits it sets ({@code ChangelogPlanUtils}, a Scala utility returning a Scala {@code
 * Option}).
 */
public final class ChangelogModes {

    private ChangelogModes() {}

    /** The changelog mode of the node; empty before the inference or for a non-stream node. */
    public static Optional<ChangelogMode> of(RelNode node) {
        if (!(node instanceof StreamPhysicalRel)) {
            return Optional.empty();
        }
        return JavaScalaConversionUtil.toJava(
                ChangelogPlanUtils.getChangelogMode((StreamPhysicalRel) node));
    }
}
