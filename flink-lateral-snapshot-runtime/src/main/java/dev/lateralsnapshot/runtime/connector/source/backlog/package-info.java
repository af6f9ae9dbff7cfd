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
 * SplitEnumeratorContext#setIsProcessingBacklog}) from its start until every one of its readers has
 * caught up: {@link dev.lateralsnapshot.runtime.connector.source.backlog.CaughtUpBacklog#wrap}. It
 * is for unbounded sources that report no backlog of their own but publish Flink's standard {@code
 * pendingRecords} gauge, as Flink's Kafka source (and upsert-kafka, which is the same source) does.
 * Flink turns the report into {@code RecordAttributes} downstream; the join ends its load phase
 * when its build input's backlog ends.
 *
 * <h2>The protocol</h2>
 *
 * <ol>
 *   <li>The enumerator, on every start, new or restored, reports a backlog and starts the source's
 *       enumerator.
 *   <li>When the source's initial discovery has gone quiet (its start has returned and every call
 *       it made through the context has run its handler once), the enumerator sends each registered
 *       reader, and each reader that registers later, an {@code AssignmentCompleteEvent}, after the
 *       splits the source's enumerator sent it.
 *   <li>A reader that has that event and whose source has just had nothing to read has caught up
 *       when it has no split, when the source's {@code pendingRecords} gauge has read 0 for a
 *       re-check interval, or, when the source never set the gauge, after a grace period without
 *       anything to read; it then sends one {@code ReaderCaughtUpEvent}. Until then the reader also
 *       wakes up every re-check interval to look again.
 *   <li>When every subtask has caught up, the enumerator reports the end of the backlog, once.
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
 */
package dev.lateralsnapshot.runtime.connector.source.backlog;
