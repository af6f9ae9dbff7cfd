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

package dev.lateralsnapshot.runtime.operators.join.snapshot.keyed;

import dev.lateralsnapshot.runtime.operators.join.snapshot.BackendTestBase;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideLayout;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateNames;

import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import org.junit.jupiter.api.TestTemplate;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The build rows of the one-row-per-key layout on their own, in the keyed state of a {@link
 * KeyedStateHost}, on every state backend: rows added while the layout holds its adds, as a release
 * of build changes adds them, read and replace as rows written at once do.
 */
class SingleRowBuildSideStateTest extends BackendTestBase {

    private static final InternalTypeInfo<RowData> TYPE = InternalTypeInfo.of(BUILD_TYPE);

    @TestTemplate
    void rowsAddedWhileAddsAreHeldReadAsRowsWrittenAtOnce() throws Exception {
        try (KeyedStateHost host = new KeyedStateHost(createStateBackend(), null)) {
            KeyedBuildSideState rows =
                    KeyedBuildSideState.create(
                            BuildSideLayout.ONE_ROW_PER_KEY,
                            host.operator.getKeyedStateStore(),
                            TYPE,
                            null,
                            false);
            rows.holdAddsIn(host.operator.getKeyedStateBackend());

            rows.startHoldingAdds();
            add(host, rows, "A", 1);
            add(host, rows, "B", 1);
            add(host, rows, "A", 2);
            host.setKey("B");
            assertThat(read(rows))
                    .as("a read of a key whose row is held")
                    .containsExactly("+I(B,1,0)");
            add(host, rows, "B", 2);
            add(host, rows, "C", 1);
            add(host, rows, "D", 1);
            host.setKey("A");
            assertThat(rows.retract(row("A", 2))).as("a retraction of a row held").isTrue();
            host.setKey("D");
            assertThat(rows.isEmpty()).isFalse();
            rows.writeHeldAdds();
            add(host, rows, "E", 1);

            assertThat(stored(host, "A")).isEmpty();
            assertThat(stored(host, "B")).containsExactly("+I(B,2,0)");
            assertThat(stored(host, "C")).containsExactly("+I(C,1,0)");
            assertThat(stored(host, "D")).containsExactly("+I(D,1,0)");
            assertThat(stored(host, "E"))
                    .as("a row added after the adds were written")
                    .containsExactly("+I(E,1,0)");
        }
    }

    private static RowData row(String currency, int rate) {
        return insert(currency, rate, 0).getValue();
    }

    private static void add(
            KeyedStateHost host, KeyedBuildSideState rows, String currency, int rate)
            throws Exception {
        host.setKey(currency);
        rows.add(row(currency, rate));
    }

    private static List<String> read(KeyedBuildSideState rows) throws Exception {
        List<RowData> read = new ArrayList<>();
        rows.visitRows((row, multiplicity) -> read.add(row));
        return KeyedStateHost.text(read);
    }

    /** The key's row as the state holds it, read through Flink's state API. */
    private static List<String> stored(KeyedStateHost host, String currency) throws Exception {
        host.setKey(currency);
        RowData row =
                host.operator
                        .getKeyedStateStore()
                        .getState(
                                new ValueStateDescriptor<>(
                                        LateralSnapshotJoinStateNames.BUILD_ROW, TYPE))
                        .value();
        return row == null ? List.of() : KeyedStateHost.text(List.of(row));
    }
}
