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
 * The LATERAL SNAPSHOT join operator, and what it shares between the two distributions of the build
 * side. Data flows one way: the operator decides, the state of its distribution keeps.
 *
 * <h2>Who owns what</h2>
 *
 * <ul>
 *   <li>{@link dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinOperator}:
 *       the phases and the flip, the held probe watermark and idle status, the build watermark, and
 *       the dispatch of every input. The phase is union operator state ({@code UnionPhaseState}).
 *   <li>{@code BuildChangeOrder}: the order of build changes (held -U rows, update pairs, pending
 *       changes by time, late changes) and the latest build time and build watermark, which are
 *       union operator state.
 *   <li>{@code BuildSideWriter}: the only way the build rows change. A change applied and a key
 *       evicted by the TTL each go through one method, which keeps the state, the heap index over
 *       it, the key's TTL clock, the metrics and the version of the build rows in step.
 *   <li>{@code ProbeRowJoiner}: joins a probe row with its key's build rows and emits; the drain's
 *       read of a key's rows is valid while the version of the build rows has not changed.
 *   <li>{@code BufferedProbeRows}: the buffered probe rows and the drain at the flip in slices.
 *   <li>{@link dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinParameters}:
 *       everything fixed at planning, shipped with the operator; names of state and metrics are in
 *       {@link dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinStateNames}
 *       and {@link dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinMetrics}.
 * </ul>
 *
 * <p>What differs between the distributions is behind {@link
 * dev.lateralsnapshot.runtime.operators.join.snapshot.JoinState} and its parts ({@code
 * BuildSideState}, {@code ProbeBuffer}, {@code BuildChangeBuffer}, {@code BuildKeyTtl}),
 * implemented in {@code keyed} (both inputs hashed by the join keys, keyed state) and {@code
 * broadcast} (the build side on every subtask, broadcast state); {@code index} holds the hash index
 * of binary keys that both use.
 *
 * <h2>One rule for what lives on the heap over state</h2>
 *
 * <p>State is what a checkpoint writes, and the truth at every snapshot. Over it the heap holds
 * only two kinds of things:
 *
 * <ul>
 *   <li><b>Copies written through</b>: the index of the build rows (keyed on the heap backend, and
 *       the broadcast build side), the TTL clock's marks of refreshed keys. Every write goes to the
 *       state and the copy together, through {@code BuildSideWriter}; a restore rebuilds them from
 *       the state in {@code JoinState#open}; a mark is lost with its key's rows and never needed
 *       for correctness.
 *   <li><b>Rows waiting to be written</b>: pending build changes and held -U rows (keyed), pending
 *       changes and buffered probe rows (broadcast). They go into state in {@code
 *       JoinState#snapshot}, which the operator calls when it takes a snapshot, and a restore reads
 *       them back in {@code JoinState#initialize} or {@code JoinState#open}.
 * </ul>
 */
package dev.lateralsnapshot.runtime.operators.join.snapshot;
