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

import org.apache.flink.table.api.internal.TableImpl;

import static java.lang.StackWalker.Option.RETAIN_CLASS_REFERENCE;

/**
 * Whether a function call is being resolved for {@code Table#leftOuterJoinLateral(call,
 * predicate)}. The resolution gives the function no sign of it; Flink's {@code TableImpl} resolves
 * the call inside that method, overloaded by the predicate, so the stack of the resolving thread
 * tells.
 */
public final class JoinLateralResolution {

    /**
     * The method of {@code TableImpl} that resolves the call; its second parameter is the
     * predicate.
     */
    public static final String LEFT_OUTER_METHOD = "leftOuterJoinLateral";

    private JoinLateralResolution() {}

    /**
     * Whether the current thread is resolving the function call of a left outer lateral join with a
     * predicate. Walks the stack: call it only where it is rare, such as while a function's type
     * inference is requested.
     */
    public static boolean isLeftOuterJoinWithPredicate() {
        return StackWalker.getInstance(RETAIN_CLASS_REFERENCE)
                .walk(
                        frames ->
                                frames.anyMatch(
                                        frame ->
                                                frame.getDeclaringClass() == TableImpl.class
                                                        && frame.getMethodName()
                                                                .equals(LEFT_OUTER_METHOD)
                                                        && frame.getMethodType().parameterCount()
                                                                == 2));
    }
}
