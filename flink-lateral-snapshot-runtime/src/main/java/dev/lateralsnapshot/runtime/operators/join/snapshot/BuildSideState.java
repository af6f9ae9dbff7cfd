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

import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import javax.annotation.Nullable;

/**
 * The build rows of the current join key, in keyed state. One implementation per {@link
 * BuildSideLayout}; the operator sets the key before every call.
 *
 * <p>Rows handed to {@link #add} and {@link #retract} have their row kind reset to {@code INSERT}
 * by the caller, so that equal rows compare equal whatever change brought them.
 */
abstract class BuildSideState {

    /** Receives the build rows of the current key during a probe. */
    interface RowVisitor {
        void visit(RowData buildRow, int multiplicity) throws Exception;
    }

    static BuildSideState create(
            BuildSideLayout layout, KeyedStateStore store, InternalTypeInfo<RowData> buildType) {
        switch (layout) {
            case MULTISET:
                return new MultisetBuildSideState(store, buildType);
            case ONE_ROW_PER_KEY:
                return new SingleRowBuildSideState(store, buildType);
            default:
                throw new IllegalArgumentException("Unknown build side layout " + layout);
        }
    }

    /** Name of the keyed state that holds the rows; frozen, savepoints depend on it. */
    abstract String stateName();

    abstract void add(RowData row) throws Exception;

    /** Removes one occurrence of the row; returns false when there was nothing to remove. */
    abstract boolean retract(RowData row) throws Exception;

    /** Visits every build row of the key; returns false when the key has no build row. */
    abstract boolean visitRows(RowVisitor visitor) throws Exception;

    /** Visits the row of a layout with at most one row per key; returns false when it is null. */
    static boolean visitSingleRow(@Nullable RowData row, RowVisitor visitor) throws Exception {
        if (row == null) {
            return false;
        }
        visitor.visit(row, 1);
        return true;
    }

    abstract boolean isEmpty() throws Exception;

    abstract void clear();
}
