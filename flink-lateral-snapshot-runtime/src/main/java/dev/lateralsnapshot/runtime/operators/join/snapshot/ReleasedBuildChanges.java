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

/**
 * Takes what a {@link BuildChangeBuffer} releases, with the key of each row current, in the order
 * in which the build side must see it.
 */
@Internal
public interface ReleasedBuildChanges {

    /** Applies a change that the build watermark has reached. */
    void apply(RowData change) throws Exception;

    /**
     * Lets a held -U go alone: applied at once when the build watermark has passed its time, else
     * pending until it does.
     */
    void addPending(long time, RowData updateBefore) throws Exception;
}
