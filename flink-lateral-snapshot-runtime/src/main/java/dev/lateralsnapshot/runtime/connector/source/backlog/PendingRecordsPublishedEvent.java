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

/**
 * From a reader to the enumerator: the source has set its {@code pendingRecords} gauge in this
 * reader, so it publishes how far behind it is, and the enumerator can report a backlog that will
 * end by that gauge. Sent once per reader, before the reader reports that its gauge read 0.
 */
final class PendingRecordsPublishedEvent implements SourceEvent {

    private static final long serialVersionUID = 1L;

    @Override
    public String toString() {
        return "PendingRecordsPublishedEvent";
    }
}
