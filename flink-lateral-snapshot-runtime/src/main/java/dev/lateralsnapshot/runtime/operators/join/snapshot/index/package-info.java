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
 * A hash index from the bytes of binary key rows to values, which probe rows of both distributions
 * read instead of a hash map's chain of objects; it holds no state of its own and is always a copy
 * of state, rebuilt at a restore.
 */
package dev.lateralsnapshot.runtime.operators.join.snapshot.index;
