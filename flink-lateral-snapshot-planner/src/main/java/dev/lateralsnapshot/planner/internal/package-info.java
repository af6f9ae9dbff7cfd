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
 * Every place where this library leans on Flink planner internals that are not meant for extension,
 * one class per hook. Flink 2.3 has no plug-in point for a new join, so the library relies on
 * things the compiler cannot check: the names and kinds of the optimizer's phases, the node classes
 * that Flink's programs after physical planning know, how the changelog mode inference reads a
 * process table function, the list of exec nodes Flink accepts, the Table API's implementation
 * classes and how its operation trees are converted and run, the token manager of Flink's generated
 * parser, and the planner configuration.
 *
 * <p>The rules for this package, checked by {@code PlannerArchitectureTest}:
 *
 * <ul>
 *   <li>No class here imports anything of this library outside this package: the hooks know Flink,
 *       not the join.
 *   <li>Outside this package, the library uses none of the Flink classes these hooks wrap, and no
 *       Scala class of the Scala library. It may use what every planner node and rule is written
 *       in: Calcite, Flink's node and rule base classes, conventions, traits and type conversion.
 *   <li>Each class has a guard test of the same name with the suffix {@code Test}, whose failure
 *       message says which assumption about Flink a new version broke.
 * </ul>
 */
package dev.lateralsnapshot.planner.internal;
