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

package dev.lateralsnapshot.runtime.operators.join.snapshot.broadcast;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

/**
 * The current key of the broadcast join, which is not keyed: selected from each probe row and build
 * change that the join handles, and made current on the build side, which the other parts of the
 * state read it from.
 */
final class BroadcastKeys {

    private final RowDataKeySelector probeKeySelector;
    private final RowDataKeySelector buildKeySelector;
    private final RowDataSerializer probeKeySerializer;
    private final RowDataSerializer buildKeySerializer;
    private final BroadcastBuildSideState<?> buildSide;

    BroadcastKeys(
            RowDataKeySelector probeKeySelector,
            RowDataKeySelector buildKeySelector,
            BroadcastBuildSideState<?> buildSide) {
        this.probeKeySelector = probeKeySelector;
        this.buildKeySelector = buildKeySelector;
        this.probeKeySerializer = probeKeySelector.getProducedType().toRowSerializer();
        this.buildKeySerializer = buildKeySelector.getProducedType().toRowSerializer();
        this.buildSide = buildSide;
    }

    /** The key of a probe row, not made current. */
    RowData probeKey(RowData probeRow) throws Exception {
        return binaryKey(probeKeySelector.getKey(probeRow), probeKeySerializer);
    }

    /** Makes the key of a probe row current and returns it. */
    RowData enterProbeKey(RowData probeRow) throws Exception {
        RowData key = probeKey(probeRow);
        buildSide.setCurrentKey(key);
        return key;
    }

    /** Makes the key of a build change current and returns it. */
    RowData enterBuildKey(RowData change) throws Exception {
        RowData key = binaryKey(buildKeySelector.getKey(change), buildKeySerializer);
        buildSide.setCurrentKey(key);
        return key;
    }

    /** Makes a key current, one that the state kept. */
    void enter(RowData key) {
        buildSide.setCurrentKey(key);
    }

    BinaryRowData currentKey() {
        return buildSide.currentKey();
    }

    /**
     * Keys are looked up in hash maps, and restored keys are binary rows: only equal forms hash
     * alike. The planner's selectors return fresh binary rows already.
     */
    private static RowData binaryKey(RowData key, RowDataSerializer serializer) {
        return key instanceof BinaryRowData ? key : serializer.toBinaryRow(key).copy();
    }
}
