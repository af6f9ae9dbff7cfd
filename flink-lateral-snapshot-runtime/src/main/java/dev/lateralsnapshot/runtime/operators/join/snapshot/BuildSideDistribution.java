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

import java.io.Serializable;

/**
 * How the build side is spread over the join's subtasks, and so how each subtask keeps its state:
 * partitioned by the join keys with both inputs ({@code keyed.HashDistribution}), or whole on every
 * subtask ({@code broadcast.BroadcastDistribution}). The planner picks it with the transformation
 * that connects the inputs; the operator only asks it for the state of its subtask.
 */
public interface BuildSideDistribution extends Serializable {

    /** The state of one subtask of a join with these parameters, not yet initialized. */
    JoinState createState(LateralSnapshotJoinParameters parameters);
}
