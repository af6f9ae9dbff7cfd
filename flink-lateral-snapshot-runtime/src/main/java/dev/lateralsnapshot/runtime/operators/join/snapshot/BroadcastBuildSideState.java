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

package dev.lateralsnapshot.runtime.operators.join.snapshot;

import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The build rows of every join key, in one subtask's broadcast state: a heap map from the equality
 * key to the key's rows, so that a probe row costs one hash lookup whatever the state backend. One
 * implementation per {@link BuildSideLayout}; the operator sets the key before every call, as for
 * the keyed state of {@link BuildSideState}.
 *
 * <p>Keys are binary rows, as the planner's key selectors make them and as the state restores them:
 * only equal forms hash alike. A key without rows is removed from the map, so that the map holds
 * exactly the keys that have rows.
 */
abstract class BroadcastBuildSideState extends BuildSideState {

    /** The map from the key to its rows, in the form of the layout. */
    private final BroadcastState<RowData, ?> rowsByKey;

    private RowData currentKey;

    /** Rows held by this subtask, every occurrence counted. */
    private long rowCount;

    BroadcastBuildSideState(BroadcastState<RowData, ?> rowsByKey) {
        this.rowsByKey = rowsByKey;
    }

    static BroadcastBuildSideState create(
            BuildSideLayout layout,
            OperatorStateStore store,
            InternalTypeInfo<RowData> keyType,
            InternalTypeInfo<RowData> buildType)
            throws Exception {
        switch (layout) {
            case MULTISET:
                return new BroadcastMultisetBuildSideState(store, keyType, buildType);
            case ONE_ROW_PER_KEY:
                return new BroadcastSingleRowBuildSideState(store, keyType, buildType);
            default:
                throw new IllegalArgumentException("Unknown build side layout " + layout);
        }
    }

    /** The name of the broadcast state of the other layout, which a restore must not find. */
    static String otherLayoutStateName(BuildSideLayout layout) {
        return layout == BuildSideLayout.MULTISET
                ? BroadcastSingleRowBuildSideState.STATE_NAME
                : BroadcastMultisetBuildSideState.STATE_NAME;
    }

    /** Sets the key of the next calls; a binary row that the state may keep as it is. */
    final void setCurrentKey(RowData key) {
        this.currentKey = key;
    }

    final RowData currentKey() {
        return currentKey;
    }

    final long rowCount() {
        return rowCount;
    }

    final void rowsAdded(long rows) {
        rowCount += rows;
    }

    /** Counts the rows a restore brought back. */
    final void countRestored() throws Exception {
        rowCount = countRows();
    }

    abstract long countRows() throws Exception;

    @Override
    final boolean isEmpty() throws Exception {
        return !rowsByKey.contains(currentKey);
    }

    /** The keys that have rows, collected first so that the state may change after. */
    final List<RowData> keys() throws Exception {
        List<RowData> keys = new ArrayList<>();
        for (Map.Entry<RowData, ?> entry : rowsByKey.entries()) {
            keys.add(entry.getKey());
        }
        return keys;
    }
}
