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
 * The state of the join with a broadcast build side: every subtask keeps the whole build side in
 * broadcast state, a heap map on every backend, and selects the key of each row itself ({@code
 * BroadcastKeys}).
 *
 * <ul>
 *   <li>{@code BroadcastJoinState}: assembles the parts and refuses snapshots of the other
 *       distribution or layout.
 *   <li>{@code BroadcastBuildSideState} and its two layouts: the build rows by key, written through
 *       to a {@code BinaryKeyIndex} of the same values, which probe rows read; a restore rebuilds
 *       the index. {@code BuildRowsWarning} warns when a subtask's copy grows large.
 *   <li>{@code BroadcastBuildChanges}: pending changes on the heap by time, written into broadcast
 *       state by a snapshot; held -U rows ({@code BroadcastHeldUpdateBefores}) in broadcast state.
 *   <li>{@code BroadcastProbeBuffer}: buffered probe rows on the heap in arrival order, written
 *       into operator list state by a snapshot.
 *   <li>{@code BroadcastStateTtl}: per subtask, on the heap, not checkpointed.
 * </ul>
 */
package dev.lateralsnapshot.runtime.operators.join.snapshot.broadcast;
