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

/**
 * How the build side of one join key is kept in state.
 *
 * <p>The planner picks the layout: {@link #ONE_ROW_PER_KEY} only when a unique key of the build
 * input is contained in the equality keys of the join, so that no join key can ever hold two build
 * rows. Everything else is a {@link #MULTISET}. The layout is part of the operator's state layout:
 * a job restored from a savepoint must keep it.
 */
public enum BuildSideLayout {

    /**
     * Any number of build rows per join key, each with its multiplicity. Needs no key on the build
     * input: retractions remove one occurrence of an equal row.
     */
    MULTISET,

    /**
     * At most one build row per join key. A probe row costs one state read; an insert or update
     * replaces the row, a retraction or delete removes it (a delete may carry only the key).
     */
    ONE_ROW_PER_KEY
}
