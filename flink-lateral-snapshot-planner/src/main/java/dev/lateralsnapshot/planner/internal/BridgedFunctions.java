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

import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.planner.functions.bridging.BridgingSqlFunction;

import org.apache.calcite.sql.SqlOperator;

import java.util.Optional;

/**
 * Functions of Flink's function catalog as SQL sees them. Flink bridges a {@link
 * FunctionDefinition} into Calcite as a {@code BridgingSqlFunction}, whether SQL or the Table API
 * calls it; the definition behind an operator tells which function it is.
 */
public final class BridgedFunctions {

    private BridgedFunctions() {}

    /** The function definition behind an operator Flink bridged from its function catalog. */
    public static Optional<FunctionDefinition> definitionOf(SqlOperator operator) {
        return operator instanceof BridgingSqlFunction
                ? Optional.of(((BridgingSqlFunction) operator).getDefinition())
                : Optional.empty();
    }
}
