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
 * The state of the join whose inputs are both partitioned by the join keys: keyed state under
 * Flink's current key, and timers.
 *
 * <ul>
 *   <li>{@code KeyedJoinState}: assembles the parts, and after a restore checks the layout,
 *       rebuilds the index and reads back what waits.
 *   <li>{@code SingleRowBuildSideState}, {@code MultisetBuildSideState} ({@code MultisetRows} and
 *       its serializer): the build rows of a key, one value state per key, in the layout the
 *       planner chose. On a backend of objects ({@code StateBackendKind}) the value state is an
 *       {@code IndexedValueState}, written through, which probe rows read.
 *   <li>{@code KeyedBuildChanges}: the pending build changes ({@code PendingBuildChanges}) and held
 *       -U rows ({@code HeldUpdateBefores}), released by event-time timers in time order. Both wait
 *       on the heap and are written into keyed state by a snapshot; {@code PendingBuildChanges}
 *       also spills into state past a bound of rows.
 *   <li>{@code KeyedProbeBuffer}: buffered probe rows by sequence number, in keyed state from the
 *       start; the drain takes them key by key.
 *   <li>{@code StateTtlClock}: the last access of each key in keyed state, its timers, and the
 *       marks of refreshed keys on the heap (in the index, or a set of its own).
 * </ul>
 */
package dev.lateralsnapshot.runtime.operators.join.snapshot.keyed;
