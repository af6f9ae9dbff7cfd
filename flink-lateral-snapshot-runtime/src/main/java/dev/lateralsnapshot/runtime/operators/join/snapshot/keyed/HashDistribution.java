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

package dev.lateralsnapshot.runtime.operators.join.snapshot.keyed;

import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideDistribution;
import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinState;
import dev.lateralsnapshot.runtime.operators.join.snapshot.LateralSnapshotJoinParameters;

/**
 * Both inputs partitioned by the join keys ({@code 'table.exec.lateral-snapshot.build-distribution'
 * = 'hash'}, the default): the transformation is keyed by them, and each subtask keeps the build
 * rows and buffered probe rows of its key groups in keyed state. Without equality keys every row
 * has the empty key, on one subtask.
 */
public final class HashDistribution implements BuildSideDistribution {

    private static final long serialVersionUID = 1L;

    @Override
    public JoinState createState(LateralSnapshotJoinParameters parameters) {
        return new KeyedJoinState(parameters);
    }

    @Override
    public String toString() {
        return "hash";
    }
}
