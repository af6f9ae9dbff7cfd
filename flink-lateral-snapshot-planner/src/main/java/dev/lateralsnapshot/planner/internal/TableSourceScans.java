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

import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.common.CommonExecTableSourceScan;
import org.apache.flink.table.planner.plan.nodes.exec.spec.DynamicTableSourceSpec;
import org.apache.flink.table.planner.utils.ShortcutUtils;

import java.util.function.UnaryOperator;

/**
 * The table source that Flink's scan exec node translates. The node's {@code
 * DynamicTableSourceSpec} holds the source that planning configured, or, in a plan that was loaded,
 * creates it from the catalog table and the recorded abilities on first use; the node translates
 * whatever source the spec then holds. Putting another source there changes what the scan reads
 * from, and nothing else of the node: its id, uid and JSON form stay, since the spec writes the
 * catalog table and abilities, not the source.
 */
public final class TableSourceScans {

    private TableSourceScans() {}

    /** Whether the node scans a dynamic table source. */
    public static boolean isTableSourceScan(ExecNode<?> node) {
        return node instanceof CommonExecTableSourceScan;
    }

    /**
     * Replaces the scan's source by the replacement of it, before the scan is translated.
     *
     * @throws IllegalArgumentException for a node that is no {@link #isTableSourceScan scan}
     */
    public static void replaceSource(
            ExecNode<?> scan, PlannerBase planner, UnaryOperator<ScanTableSource> replacement) {
        if (!isTableSourceScan(scan)) {
            throw new IllegalArgumentException("Not a table source scan: " + scan);
        }
        DynamicTableSourceSpec spec = ((CommonExecTableSourceScan) scan).getTableSourceSpec();
        ScanTableSource source =
                spec.getScanTableSource(
                        planner.getFlinkContext(), ShortcutUtils.unwrapTypeFactory(planner));
        spec.setTableSource(replacement.apply(source));
    }
}
