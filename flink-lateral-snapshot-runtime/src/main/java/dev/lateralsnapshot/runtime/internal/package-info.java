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
 * Every place where the join's runtime leans on internals of Flink's state backends that are not
 * meant for use outside them, one class per hook.
 *
 * <p>The rules for this package, checked by {@code RuntimeArchitectureTest}:
 *
 * <ul>
 *   <li>No class here imports anything of this library outside this package: the hooks know Flink,
 *       not the join.
 *   <li>Outside this package, the library uses no class of a state backend's implementation and no
 *       RocksDB class.
 *   <li>Each hook class has a guard test of the same name with the suffix {@code Test}, whose
 *       failure message says which assumption about Flink a new version broke.
 * </ul>
 */
package dev.lateralsnapshot.runtime.internal;
