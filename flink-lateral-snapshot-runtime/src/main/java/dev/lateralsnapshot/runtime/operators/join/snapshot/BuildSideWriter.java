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

import org.apache.flink.metrics.Counter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.function.ThrowingRunnable;

import javax.annotation.Nullable;

import java.util.function.BooleanSupplier;

/**
 * The one way the build rows change: a build change applied ({@link #apply}), or a key evicted by
 * the state TTL ({@link #evictCurrentKey}). Each keeps everything over the build rows in step: the
 * state and the heap index over it (written through by {@link BuildSideState}), the key's TTL
 * clock, the metrics, and the {@link #version} that tells a read of a key's rows made before
 * whether it is still current.
 */
final class BuildSideWriter {

    private final BuildSideState buildSide;
    @Nullable private final BuildKeyTtl ttl;
    private final BooleanSupplier joinPhase;
    private final Counter unmatchedRetractions;
    private final Counter changesApplied;
    private final Counter evictions;

    /** Counts every change to the build rows, so that a read of them knows when it went stale. */
    private long version;

    BuildSideWriter(
            BuildSideState buildSide,
            @Nullable BuildKeyTtl ttl,
            BooleanSupplier joinPhase,
            Counter unmatchedRetractions,
            Counter changesApplied,
            Counter evictions) {
        this.buildSide = buildSide;
        this.ttl = ttl;
        this.joinPhase = joinPhase;
        this.unmatchedRetractions = unmatchedRetractions;
        this.changesApplied = changesApplied;
        this.evictions = evictions;
    }

    /**
     * Applies a build change of the current key: an insert or update adds its row (and in the join
     * phase starts the key's TTL clock, should it not run), a retraction or delete removes one
     * occurrence of it.
     */
    void apply(RowData change) throws Exception {
        version++;
        RowKind kind = change.getRowKind();
        change.setRowKind(RowKind.INSERT);
        if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER) {
            if (ttl != null && joinPhase.getAsBoolean() && !ttl.isRunning()) {
                ttl.start();
            }
            buildSide.add(change);
        } else if (!buildSide.retract(change)) {
            unmatchedRetractions.inc();
        }
        changesApplied.inc();
    }

    /**
     * Applies the changes that a release of build changes applies ({@link #apply} for each), and
     * lets the build side hold the rows they add until the release ends, to write them together.
     */
    void applyReleased(ThrowingRunnable<Exception> release) throws Exception {
        buildSide.startHoldingAdds();
        release.run();
        buildSide.writeHeldAdds();
    }

    /** Evicts every build row of the current key, whose TTL clock expired. */
    void evictCurrentKey() throws Exception {
        if (!buildSide.isEmpty()) {
            version++;
            buildSide.clear();
            evictions.inc();
        }
    }

    /** Changes with every change to the build rows. */
    long version() {
        return version;
    }
}
