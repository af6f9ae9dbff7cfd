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

import org.apache.flink.table.types.inference.StaticArgument;
import org.apache.flink.table.types.inference.SystemTypeInference;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The system arguments Flink adds to every process table function ({@code SystemTypeInference}): a
 * function may not declare them itself, and a resolved call has them after the declared arguments,
 * in this order.
 */
public final class ProcessTableFunctionSignature {

    private ProcessTableFunctionSignature() {}

    /** The names of the system arguments, in the order they follow the declared arguments. */
    public static List<String> systemArgumentNames() {
        return SystemTypeInference.PROCESS_TABLE_FUNCTION_SYSTEM_ARGS.stream()
                .map(StaticArgument::getName)
                .collect(Collectors.toUnmodifiableList());
    }
}
