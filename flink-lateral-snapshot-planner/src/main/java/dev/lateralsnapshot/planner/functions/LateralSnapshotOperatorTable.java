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

import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.validate.SqlNameMatcher;
import org.apache.calcite.sql.validate.SqlValidator;

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
            operatorList.removeIf(SnapshotCalls::isTableApiSnapshot);
            operatorList.add(
                    category == SqlFunctionCategory.USER_DEFINED_FUNCTION
                            ? MisplacedSnapshotCall.INSTANCE
                            : SnapshotTableFunction.INSTANCE);
        }
    }

    /**
     * SNAPSHOT called like a scalar function (in a SELECT list or a condition), which the parser
     * looks up as a user-defined function rather than a table function. It fails before the
     * validator expands its operands, where the DESCRIPTOR would give a misleading unknown column.
     */
    private static final class MisplacedSnapshotCall extends SqlFunction {

        static final MisplacedSnapshotCall INSTANCE = new MisplacedSnapshotCall();

        private MisplacedSnapshotCall() {
            super(
                    SnapshotTableFunction.NAME,
                    SqlKind.OTHER_FUNCTION,
                    ReturnTypes.CURSOR,
                    null,
                    null,
                    SqlFunctionCategory.USER_DEFINED_FUNCTION);
        }

        @Override
        public SqlNode rewriteCall(SqlValidator validator, SqlCall call) {
            throw SnapshotCalls.misplaced(true);
        }
    }

    @Override
    public List<SqlOperator> getOperatorList() {
        return List.of(SnapshotTableFunction.INSTANCE);
    }
}
