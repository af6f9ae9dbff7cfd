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

/**
 * A wrapper for a FLIP-27 source that makes it report a backlog ({@code
 * SplitEnumeratorContext#setIsProcessingBacklog}) from the moment it publishes the {@code
 * pendingRecords} gauge until every one of its readers has caught up: {@link
 * dev.lateralsnapshot.runtime.connector.source.backlog.CaughtUpBacklog#wrap}. It is for unbounded
 * sources that report no backlog of their own but publish Flink's standard {@code pendingRecords}
 * gauge, as Flink's Kafka source (and upsert-kafka, which is the same source) does. Flink turns the
 * report into {@code RecordAttributes} downstream; the join ends its load phase when its build
 * input's backlog ends.
 *
 * <h2>The protocol</h2>
 *
 * <ol>
 *   <li>The enumerator, on every start, new or restored, starts the source's enumerator.
 *   <li>When the source's initial discovery has gone quiet (its start has returned and every call
 *       it made through the context has run its handler once), the enumerator sends each registered
 *       reader, and each reader that registers later, an {@code AssignmentCompleteEvent}, after the
 *       splits the source's enumerator sent it.
 *   <li>A reader that finds the source's gauge set tells the enumerator, once ({@code
 *       PendingRecordsPublishedEvent}); the first such event makes the enumerator report a backlog.
 *   <li>A reader that has the assignment event and whose source has just had nothing to read tells
 *       the enumerator how it has caught up, in a {@code ReaderCaughtUpEvent}: {@code NO_SPLIT}
 *       when it has no split, {@code PENDING_RECORDS_ZERO} when the gauge has read 0 for a re-check
 *       interval, {@code END_OF_INPUT} when its source has ended, and, when its source has set no
 *       gauge, {@code IDLE_WITHOUT_GAUGE} after a re-check interval without anything to read. All
 *       but {@code IDLE_WITHOUT_GAUGE} are final. After that one the reader keeps watching: when it
 *       reads records or gets new splits, it takes its report back ({@code READING_AGAIN}) and
 *       later reports again by the same rules, by a gauge the source has set meanwhile if there is
 *       one. Until its report is final the reader also wakes up every re-check interval to look
 *       again.
 *   <li>When the backlog has started and every subtask has caught up, the enumerator reports the
 *       end of the backlog, once. A subtask whose latest report is {@code IDLE_WITHOUT_GAUGE}
 *       counts only while another's latest is {@code PENDING_RECORDS_ZERO}: after a failure, the
 *       restarted reader of the partitions that had the gauge reports again and is not vouched for
 *       by the gauge it had before. It then tells the readers still watching, and every reader that
 *       registers later, that the backlog has ended ({@code BacklogEndedEvent}); they stop
 *       watching. A subtask that registers again before the end must catch up again.
 * </ol>
 *
 * <p>Every other source event goes through unchanged, both ways. The wrapper keeps no state: the
 * splits, serializers and checkpoints are the source's, and a restore starts the protocol over,
 * since Flink does not checkpoint the backlog either. A source that reports its own backlog (a
 * HybridSource) keeps doing so, and the wrapper then reports nothing.
 *
 * <h2>What "caught up" can miss</h2>
 *
 * <p>It is a heuristic. Kafka's gauge sums the lag of the partitions that have returned records;
 * one that has not yet answered is missing from the sum. A row that arrives after its reader has
 * caught up reaches the join after the load phase, as a change of the build side.
 *
 * <p>Flink's Kafka source sets the gauge only after a fetch that returned records, so a reader
 * whose partitions have nothing to read has none. To its reader, a partition that has never
 * answered is indistinguishable from an empty one: both give nothing to read and no gauge. The
 * wrapper cannot tell them apart; it goes by the reader's siblings. Once one reader of the source
 * has caught up by its gauge, the source publishes the gauge and its system has answered, and the
 * wrapper takes a reader without a gauge that has had nothing to read for a re-check interval to
 * have read empty partitions. That assumes that the system answers the first fetches of all the
 * readers of a source within about the time one reader takes to read its partitions and see its
 * gauge at 0 for a re-check interval. A partition whose leader answers later than that (a broker
 * that is slow or down while the others answer) has its rows reach the join after the load phase,
 * as changes.
 *
 * <p>A source that never sets the gauge reports no backlog, and the join's load phase ends by its
 * other conditions. That covers a source without the gauge, and a Kafka topic that has nothing to
 * read: an empty topic, one read from its latest offset, and one whose readers restored at its end.
 * Reporting a backlog for them would end it only after some fixed wait, which is the timeout this
 * wrapper is meant to replace; an unreachable system would look the same and end the load phase
 * without its rows.
 */
package dev.lateralsnapshot.runtime.connector.source.backlog;
