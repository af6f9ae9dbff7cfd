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

package dev.lateralsnapshot.planner.functions;

import dev.lateralsnapshot.planner.FlinkPlannerInternals;

import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.validate.SqlNameMatcher;

import javax.annotation.Nullable;

import java.util.List;

/**
 * The operator table that adds {@code SNAPSHOT} to Flink's. The name is matched ignoring case, as
 * Flink matches the names of its built-in functions, although identifiers are case-sensitive in
 * Flink SQL.
 *
 * <p>When the Table API's {@code SNAPSHOT} is registered ({@code LateralSnapshotModule}), Flink's
 * catalog operator table, which comes first in the chain, offers it to SQL as well. This table
 * removes that offer: SQL must keep {@link SnapshotTableFunction}, whose rows, arguments and
 * messages are specified, and Calcite would otherwise pick the first of the two.
 */
public final class LateralSnapshotOperatorTable implements SqlOperatorTable {

    public static final LateralSnapshotOperatorTable INSTANCE = new LateralSnapshotOperatorTable();

    private LateralSnapshotOperatorTable() {}

    @Override
    public void lookupOperatorOverloads(
            SqlIdentifier opName,
            @Nullable SqlFunctionCategory category,
            SqlSyntax syntax,
            List<SqlOperator> operatorList,
            SqlNameMatcher nameMatcher) {
        if (syntax == SqlSyntax.FUNCTION
                && opName.isSimple()
                && opName.getSimple().equalsIgnoreCase(SnapshotTableFunction.NAME)) {
            // Calcite's chain of operator tables hands every table the same list.
            operatorList.removeIf(
                    operator ->
                            FlinkPlannerInternals.bridgedFunction(operator)
                                    .filter(SnapshotProcessTableFunction::isSnapshotFunction)
                                    .isPresent());
            operatorList.add(SnapshotTableFunction.INSTANCE);
        }
    }

    @Override
    public List<SqlOperator> getOperatorList() {
        return List.of(SnapshotTableFunction.INSTANCE);
    }
}
