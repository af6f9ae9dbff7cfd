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

package dev.lateralsnapshot.planner.internal;

import org.apache.flink.table.operations.utils.OperationTreeBuilder;

/**
 * Whether a function call is being resolved for {@code Table#joinLateral} or {@code
 * Table#leftOuterJoinLateral}. The resolution gives the function no sign of it; every lateral join
 * of the Table API resolves its call inside {@code OperationTreeBuilder#joinLateral}, so the stack
 * of the resolving thread tells.
 */
public final class JoinLateralResolution {

    /** The class whose method resolves the call of every lateral join of the Table API. */
    public static final String RESOLVING_CLASS = OperationTreeBuilder.class.getName();

    /** That method. */
    public static final String RESOLVING_METHOD = "joinLateral";

    private JoinLateralResolution() {}

    /**
     * Whether the current thread is resolving the function call of a lateral join. Walks the stack:
     * call it only where it is rare, such as while a function's type inference is requested.
     */
    public static boolean isInProgress() {
        return StackWalker.getInstance()
                .walk(
                        frames ->
                                frames.anyMatch(
                                        frame ->
                                                frame.getClassName().equals(RESOLVING_CLASS)
                                                        && frame.getMethodName()
                                                                .equals(RESOLVING_METHOD)));
    }
}
