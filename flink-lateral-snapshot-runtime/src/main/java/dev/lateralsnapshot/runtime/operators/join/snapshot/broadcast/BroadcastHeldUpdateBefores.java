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

import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateNames;

import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.api.java.typeutils.ListTypeInfo;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The build side's -U rows that wait for their +U, in one subtask's broadcast state: per join key,
 * in arrival order, each with its own time and the build watermark that lets it go alone. The
 * operator decides when they are held and let go; of several rows of one key and time, the latest
 * release watermark counts, as {@code BuildChangeBuffer#hold} says.
 *
 * <p>A -U is followed by its +U, so the state is nearly always empty or holds one row; a count
 * spares the lookups then.
 */
final class BroadcastHeldUpdateBefores {

    /** Per key: (time, release watermark, row), in arrival order. */
    private final BroadcastState<RowData, List<Tuple3<Long, Long, RowData>>> held;

    /** The held rows of all keys. */
    private long count;

    BroadcastHeldUpdateBefores(
            OperatorStateStore store,
            InternalTypeInfo<RowData> keyType,
            InternalTypeInfo<RowData> buildType)
            throws Exception {
        this.held =
                store.getBroadcastState(
                        new MapStateDescriptor<>(
                                LateralSnapshotJoinStateNames.BROADCAST_HELD_UPDATE_BEFORE,
                                keyType,
                                new ListTypeInfo<>(
                                        new TupleTypeInfo<Tuple3<Long, Long, RowData>>(
                                                Types.LONG, Types.LONG, buildType))));
        // Counts the rows a restore brought back.
        for (Map.Entry<RowData, List<Tuple3<Long, Long, RowData>>> entry : held.entries()) {
            count += entry.getValue().size();
        }
    }

    /** Holds a -U of a key under its time, to go alone once the watermark reaches releaseAt. */
    void hold(RowData key, long time, long releaseAt, RowData updateBefore) throws Exception {
        List<Tuple3<Long, Long, RowData>> rows = held.get(key);
        if (rows == null) {
            rows = new ArrayList<>();
            held.put(key, rows);
        }
        long release = releaseAt;
        for (Tuple3<Long, Long, RowData> row : rows) {
            if (row.f0 == time) {
                release = Math.max(release, row.f1);
            }
        }
        for (Tuple3<Long, Long, RowData> row : rows) {
            if (row.f0 == time) {
                row.f1 = release;
            }
        }
        rows.add(Tuple3.of(time, release, updateBefore));
        count++;
    }

    /** Removes and returns the held rows of a key, in arrival order. */
    List<RowData> takeAll(RowData key) throws Exception {
        if (count == 0) {
            return Collections.emptyList();
        }
        List<Tuple3<Long, Long, RowData>> rows = held.get(key);
        if (rows == null) {
            return Collections.emptyList();
        }
        held.remove(key);
        List<RowData> taken = new ArrayList<>(rows.size());
        for (Tuple3<Long, Long, RowData> row : rows) {
            taken.add(row.f2);
        }
        count -= rows.size();
        return taken;
    }

    /**
     * Removes and returns the held rows of every key that the watermark lets go alone, in arrival
     * order per key.
     */
    List<RowData> takeReleased(long watermark) throws Exception {
        if (count == 0) {
            return Collections.emptyList();
        }
        List<RowData> taken = new ArrayList<>();
        Iterator<Map.Entry<RowData, List<Tuple3<Long, Long, RowData>>>> keys = held.iterator();
        while (keys.hasNext()) {
            List<Tuple3<Long, Long, RowData>> rows = keys.next().getValue();
            Iterator<Tuple3<Long, Long, RowData>> it = rows.iterator();
            while (it.hasNext()) {
                Tuple3<Long, Long, RowData> row = it.next();
                if (row.f1 <= watermark) {
                    taken.add(row.f2);
                    it.remove();
                    count--;
                }
            }
            if (rows.isEmpty()) {
                keys.remove();
            }
        }
        return taken;
    }
}
