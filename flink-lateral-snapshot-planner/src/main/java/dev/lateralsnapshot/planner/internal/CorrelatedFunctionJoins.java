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

import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.ContextResolvedTable;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.QueryOperationCatalogView;
import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.operations.CorrelatedFunctionQueryOperation;
import org.apache.flink.table.operations.FunctionQueryOperation;
import org.apache.flink.table.operations.JoinQueryOperation;
import org.apache.flink.table.operations.QueryOperation;
import org.apache.flink.table.operations.SourceQueryOperation;
import org.apache.flink.table.planner.calcite.FlinkRelBuilder;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.operations.PlannerQueryOperation;
import org.apache.flink.table.planner.plan.QueryOperationConverter;

import org.apache.calcite.rel.RelNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Converts Table API operation trees in which a lateral join ({@code Table#joinLateral}, {@code
 * Table#leftOuterJoinLateral}) calls a function that takes nothing from the outer row: such a join
 * is converted as the plain join of the outer table with the function's table ({@code
 * join(env.fromCall(...))}), the tree SQL's parser builds for the same query.
 *
 * <p>Flink's {@code QueryOperationConverter} cannot convert such a join when the function has a
 * table argument: it translates the arguments of a lateral call with its expression converter,
 * which has no translation for a table ({@code UnsupportedOperationException:
 * TableReferenceExpression:input}). The converter is public and not final, and it visits the
 * children of every operation through itself, so a subclass meets the join at any depth of the
 * tree, also inside a view that the tree reads.
 */
public final class CorrelatedFunctionJoins {

    private CorrelatedFunctionJoins() {}

    /**
     * Whether the tree, or a view it reads, holds a lateral join with a function that the predicate
     * accepts.
     */
    public static boolean contains(
            QueryOperation operation, Predicate<FunctionDefinition> uncorrelated) {
        if (lateralCall(operation, uncorrelated).isPresent()) {
            return true;
        }
        Optional<QueryOperation> view = viewQuery(operation);
        if (view.isPresent()) {
            return contains(view.get(), uncorrelated);
        }
        return operation.getChildren().stream().anyMatch(child -> contains(child, uncorrelated));
    }

    /**
     * Converts the tree with the planner, every lateral join with a function that the predicate
     * accepts as a plain join; the result is an operation that Flink's planner reads as converted.
     */
    public static QueryOperation convert(
            Planner planner, QueryOperation operation, Predicate<FunctionDefinition> uncorrelated) {
        PlannerBase flinkPlanner = (PlannerBase) planner;
        FlinkRelBuilder relBuilder = flinkPlanner.createRelBuilder();
        RelNode converted =
                operation.accept(
                        new Converter(
                                relBuilder,
                                flinkPlanner.getFlinkContext().isBatchMode(),
                                uncorrelated));
        return new PlannerQueryOperation(converted, operation::asSummaryString);
    }

    /**
     * The names of the temporary views of the current catalog and database whose query holds a
     * lateral join with a function that the predicate accepts. SQL reads such a view with Flink's
     * own converter, which fails on that join.
     */
    public static List<String> temporaryViewsWith(
            Planner planner, Predicate<FunctionDefinition> uncorrelated) {
        CatalogManager catalogs = ((PlannerBase) planner).getFlinkContext().getCatalogManager();
        List<String> views = new ArrayList<>();
        for (String name : new TreeSet<>(catalogs.listTemporaryViews())) {
            ObjectIdentifier identifier =
                    ObjectIdentifier.of(
                            catalogs.getCurrentCatalog(), catalogs.getCurrentDatabase(), name);
            CatalogBaseTable view =
                    catalogs.getTable(identifier)
                            .<CatalogBaseTable>map(ContextResolvedTable::getTable)
                            .orElse(null);
            if (view instanceof QueryOperationCatalogView
                    && contains(
                            ((QueryOperationCatalogView) view).getQueryOperation(), uncorrelated)) {
                views.add(name);
            }
        }
        return views;
    }

    /** The function of a lateral join that the predicate accepts, if the operation is one. */
    private static Optional<CorrelatedFunctionQueryOperation> lateralCall(
            QueryOperation operation, Predicate<FunctionDefinition> uncorrelated) {
        if (!(operation instanceof JoinQueryOperation)) {
            return Optional.empty();
        }
        JoinQueryOperation join = (JoinQueryOperation) operation;
        if (!join.isCorrelated() || !(right(join) instanceof CorrelatedFunctionQueryOperation)) {
            return Optional.empty();
        }
        CorrelatedFunctionQueryOperation call = (CorrelatedFunctionQueryOperation) right(join);
        return uncorrelated.test(call.getResolvedFunction().getDefinition())
                ? Optional.of(call)
                : Optional.empty();
    }

    /** The right input of a join: its children are the left and the right input, in that order. */
    private static QueryOperation right(JoinQueryOperation join) {
        return join.getChildren().get(1);
    }

    /** The query of a view that the Table API made from a table, if the operation reads one. */
    private static Optional<QueryOperation> viewQuery(QueryOperation operation) {
        if (!(operation instanceof SourceQueryOperation)) {
            return Optional.empty();
        }
        CatalogBaseTable table =
                ((SourceQueryOperation) operation).getContextResolvedTable().getTable();
        return table instanceof QueryOperationCatalogView
                ? Optional.of(((QueryOperationCatalogView) table).getQueryOperation())
                : Optional.empty();
    }

    private static final class Converter extends QueryOperationConverter {

        private final Predicate<FunctionDefinition> uncorrelated;

        Converter(
                FlinkRelBuilder relBuilder,
                boolean isBatchMode,
                Predicate<FunctionDefinition> uncorrelated) {
            super(relBuilder, isBatchMode);
            this.uncorrelated = uncorrelated;
        }

        @Override
        public RelNode visit(JoinQueryOperation join) {
            Optional<CorrelatedFunctionQueryOperation> call = lateralCall(join, uncorrelated);
            if (call.isEmpty()) {
                return super.visit(join);
            }
            FunctionQueryOperation table =
                    new FunctionQueryOperation(
                            call.get().getResolvedFunction(),
                            call.get().getArguments(),
                            call.get().getResolvedSchema());
            return super.visit(
                    new JoinQueryOperation(
                            join.getChildren().get(0),
                            table,
                            join.getJoinType(),
                            join.getCondition(),
                            false));
        }

        /**
         * A view whose tree holds such a join is converted in place: Flink's own expansion of the
         * view would convert it with Flink's converter, which fails on it.
         */
        @Override
        public RelNode visit(SourceQueryOperation source) {
            Optional<QueryOperation> view = viewQuery(source);
            if (view.isPresent() && contains(view.get(), uncorrelated)) {
                return view.get().accept(this);
            }
            return super.visit(source);
        }
    }
}
