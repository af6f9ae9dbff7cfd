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

import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

/**
 * At most one build row per join key, for the reasons {@link SingleRowBuildSideState} gives:
 * inserts and updates replace the row, a retraction removes it without comparing.
 */
final class BroadcastSingleRowBuildSideState extends BroadcastBuildSideState<RowData> {

    static final String STATE_NAME = "broadcast-build-row";

    BroadcastSingleRowBuildSideState(
            OperatorStateStore store,
            InternalTypeInfo<RowData> keyType,
            InternalTypeInfo<RowData> buildType)
            throws Exception {
        super(store.getBroadcastState(new MapStateDescriptor<>(STATE_NAME, keyType, buildType)));
    }

    @Override
    String stateName() {
        return STATE_NAME;
    }

    @Override
    void add(RowData newRow) throws Exception {
        if (isEmpty()) {
            rowsAdded(1);
        }
        putRowsOfKey(newRow);
    }

    @Override
    boolean retract(RowData oldRow) throws Exception {
        if (isEmpty()) {
            return false;
        }
        removeKey();
        rowsAdded(-1);
        return true;
    }

    @Override
    boolean visitRows(RowVisitor visitor) throws Exception {
        return visitSingleRow(rowsOfKey(), visitor);
    }

    @Override
    void clear() {
        try {
            if (!isEmpty()) {
                removeKey();
                rowsAdded(-1);
            }
        } catch (Exception e) {
            throw new IllegalStateException("Could not clear the build row of a key.", e);
        }
    }

    @Override
    long countRows() {
        return keysWithRows();
    }
}
