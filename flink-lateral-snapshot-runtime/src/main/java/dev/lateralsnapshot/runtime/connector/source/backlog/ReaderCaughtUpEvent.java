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

package dev.lateralsnapshot.runtime.connector.source.backlog;

import org.apache.flink.api.connector.source.SourceEvent;

import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * From a reader to the enumerator: how it has caught up with what its source had, or that it takes
 * back an {@link Kind#IDLE_WITHOUT_GAUGE}. The subtask is the one the event comes from. It only
 * travels between the running enumerator and its readers, never into a checkpoint.
 */
final class ReaderCaughtUpEvent implements SourceEvent {

    private static final long serialVersionUID = 1L;

    /** How the reader caught up; all but the last two are final. */
    enum Kind {
        /** Its assignment was complete and it had no split. */
        NO_SPLIT,
        /** The source's {@code pendingRecords} gauge read 0 for a re-check interval. */
        PENDING_RECORDS_ZERO,
        /** Its source ended. */
        END_OF_INPUT,
        /**
         * Its source set no gauge and it had nothing to read for a re-check interval; the
         * enumerator counts it once the source has published the gauge in another reader.
         */
        IDLE_WITHOUT_GAUGE,
        /** Not caught up after all: after an {@link #IDLE_WITHOUT_GAUGE}, it reads again. */
        READING_AGAIN
    }

    private final Kind kind;

    ReaderCaughtUpEvent(Kind kind) {
        this.kind = checkNotNull(kind);
    }

    Kind kind() {
        return kind;
    }

    @Override
    public String toString() {
        return "ReaderCaughtUpEvent(" + kind + ")";
    }
}
