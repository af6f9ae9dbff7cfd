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

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;

import java.util.List;

/**
 * The build changes that wait for the build watermark to reach their time, and the -U rows that
 * wait for their +U. The operator decides what waits and for how long; the buffer keeps it and
 * releases it in time order.
 */
@Internal
public interface BuildChangeBuffer {

    /** Keeps a change of the current key until the build watermark reaches its time. */
    void add(long time, RowData change) throws Exception;

    /**
     * Holds a -U of the current key under its time. Unless {@link #takeHeld} takes it first, the -U
     * goes alone once the build watermark reaches {@code releaseAt}; of several held for one time,
     * the latest release time counts.
     */
    void hold(long time, long releaseAt, RowData updateBefore) throws Exception;

    /** Removes and returns the held -U rows of the current key, in arrival order per time. */
    List<RowData> takeHeld() throws Exception;

    /**
     * Hands the changes up to the time to {@link JoinStateContext#released()}: in time order, those
     * of one time in arrival order, each key's held -U rows that the time lets go after its changes
     * of their time, each with its key current.
     */
    void releaseUpTo(long time) throws Exception;
}
