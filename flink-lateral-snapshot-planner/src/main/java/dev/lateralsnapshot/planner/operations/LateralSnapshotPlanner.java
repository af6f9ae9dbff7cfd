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

package dev.lateralsnapshot.planner.operations;

import dev.lateralsnapshot.planner.functions.SnapshotProcessTableFunction;
import dev.lateralsnapshot.planner.internal.CorrelatedFunctionJoins;
import dev.lateralsnapshot.planner.internal.LoadedPlans;
import dev.lateralsnapshot.planner.internal.ModifyOperations;
import dev.lateralsnapshot.planner.internal.TableEnvironmentPlanners;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.ExplainFormat;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.UnresolvedIdentifier;
import org.apache.flink.table.delegation.InternalPlan;
import org.apache.flink.table.delegation.Parser;
import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.operations.ModifyOperation;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.operations.QueryOperation;
import org.apache.flink.table.planner.plan.nodes.exec.processor.ExecNodeGraphProcessor;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Flink's planner, with one thing more: it plans the Table API's lateral join with {@code
 * SNAPSHOT}, {@code orders.joinLateral(call("SNAPSHOT", rates.asArgument("input"), ...),
 * predicate)}, which Flink 2.3 cannot convert, as the join with the snapshot table that SQL's
 * {@code JOIN LATERAL SNAPSHOT(...)} and {@code orders.join(env.fromCall("SNAPSHOT", ...),
 * predicate)} are. Everything else goes to Flink's planner unchanged, the same operations in the
 * same objects: a statement or table without such a join is planned exactly as by Flink.
 *
 * <p>The rewrite is where a {@code Table} reaches the planner: when it runs ({@code execute()},
 * {@code executeInsert}, {@code insertInto(...).execute()}, statement sets, the conversions to a
 * {@code DataStream}), is explained, or is compiled to a plan.
 */
public final class LateralSnapshotPlanner implements TableEnvironmentPlanners.Wrapper {

    private final Planner flinkPlanner;

    private final List<ExecNodeGraphProcessor> planProcessors;

    private LateralSnapshotPlanner(
            Planner flinkPlanner, List<ExecNodeGraphProcessor> planProcessors) {
        this.flinkPlanner = flinkPlanner;
        this.planProcessors = List.copyOf(planProcessors);
    }

    /** The planner with the rewrite; a planner that has it already is returned as is. */
    public static Planner wrap(Planner planner) {
        return wrap(planner, List.of());
    }

    /**
     * The planner with the rewrite, which also applies the processors to a compiled plan right
     * before it translates it: Flink applies a planner's processors to the statements it plans, not
     * to a plan it loads. Each processor must change the graph in place.
     */
    public static Planner wrap(Planner planner, List<ExecNodeGraphProcessor> planProcessors) {
        return planner instanceof LateralSnapshotPlanner
                ? planner
                : new LateralSnapshotPlanner(planner, planProcessors);
    }

    /**
     * Flink's planner, to which this one delegates: the environment's {@code getPlanner()} returns
     * this planner, so code that needs Flink's own class (its tests, for example) unwraps it here.
     */
    @Override
    public Planner flinkPlanner() {
        return flinkPlanner;
    }

    /**
     * Flink's parser, with a clear error for SQL that reads a view made from a {@code joinLateral}
     * table with {@code SNAPSHOT}: SQL expands a view with Flink's own conversion, which fails on
     * that join with an {@code UnsupportedOperationException} that names no view.
     */
    @Override
    public Parser getParser() {
        return new ViewCheckingParser(flinkPlanner.getParser());
    }

    @Override
    public List<Transformation<?>> translate(List<ModifyOperation> modifyOperations) {
        List<ModifyOperation> planned = rewrite(modifyOperations);
        List<Transformation<?>> transformations = flinkPlanner.translate(planned);
        copyTranslationResults(planned, modifyOperations);
        return transformations;
    }

    @Override
    public String explain(
            List<Operation> operations, ExplainFormat format, ExplainDetail... extraDetails) {
        return flinkPlanner.explain(rewrite(operations, this::rewrite), format, extraDetails);
    }

    @Override
    public InternalPlan loadPlan(PlanReference planReference) throws IOException {
        return flinkPlanner.loadPlan(planReference);
    }

    @Override
    public InternalPlan compilePlan(List<ModifyOperation> modifyOperations) {
        List<ModifyOperation> planned = rewrite(modifyOperations);
        InternalPlan plan = flinkPlanner.compilePlan(planned);
        copyTranslationResults(planned, modifyOperations);
        return plan;
    }

    @Override
    public List<Transformation<?>> translatePlan(InternalPlan plan) {
        LoadedPlans.process(plan, flinkPlanner, planProcessors);
        return flinkPlanner.translatePlan(plan);
    }

    @Override
    public String explainPlan(InternalPlan plan, ExplainDetail... extraDetails) {
        return flinkPlanner.explainPlan(plan, extraDetails);
    }

    // ---- the rewrite ----

    private List<ModifyOperation> rewrite(List<ModifyOperation> operations) {
        return rewrite(operations, this::rewrite);
    }

    private Operation rewrite(Operation operation) {
        if (operation instanceof ModifyOperation) {
            return rewrite((ModifyOperation) operation);
        }
        if (operation instanceof QueryOperation) {
            return rewrite((QueryOperation) operation);
        }
        return operation;
    }

    private ModifyOperation rewrite(ModifyOperation operation) {
        QueryOperation query = operation.getChild();
        QueryOperation rewritten = rewrite(query);
        if (rewritten == query) {
            return operation;
        }
        return ModifyOperations.withQuery(operation, rewritten)
                .orElseThrow(() -> unsupportedModifyOperation(operation));
    }

    private QueryOperation rewrite(QueryOperation operation) {
        if (!CorrelatedFunctionJoins.contains(
                operation, SnapshotProcessTableFunction::isSnapshot)) {
            return operation;
        }
        return CorrelatedFunctionJoins.convert(
                flinkPlanner, operation, SnapshotProcessTableFunction::isSnapshot);
    }

    private static <T> List<T> rewrite(List<T> operations, Function<T, T> rewrite) {
        List<T> rewritten = new ArrayList<>(operations.size());
        for (T operation : operations) {
            rewritten.add(rewrite.apply(operation));
        }
        return rewritten;
    }

    private static void copyTranslationResults(
            List<ModifyOperation> planned, List<ModifyOperation> original) {
        for (int i = 0; i < planned.size(); i++) {
            if (planned.get(i) != original.get(i)) {
                ModifyOperations.copyTranslationResults(planned.get(i), original.get(i));
            }
        }
    }

    private final class ViewCheckingParser implements Parser {

        private final Parser flinkParser;

        ViewCheckingParser(Parser flinkParser) {
            this.flinkParser = flinkParser;
        }

        @Override
        public List<Operation> parse(String statement) {
            try {
                return flinkParser.parse(statement);
            } catch (UnsupportedOperationException e) {
                throw viewError(statement, e);
            }
        }

        @Override
        public UnresolvedIdentifier parseIdentifier(String identifier) {
            return flinkParser.parseIdentifier(identifier);
        }

        @Override
        public ResolvedExpression parseSqlExpression(
                String sqlExpression, RowType inputRowType, @Nullable LogicalType outputType) {
            return flinkParser.parseSqlExpression(sqlExpression, inputRowType, outputType);
        }

        @Override
        public String[] getCompletionHints(String statement, int position) {
            return flinkParser.getCompletionHints(statement, position);
        }

        /**
         * Ours for a statement that names such a view (names are case-sensitive in Flink SQL);
         * Flink's own error otherwise.
         */
        private RuntimeException viewError(String statement, UnsupportedOperationException e) {
            for (String view :
                    CorrelatedFunctionJoins.temporaryViewsWith(
                            flinkPlanner, SnapshotProcessTableFunction::isSnapshot)) {
                if (Pattern.compile("\\b" + Pattern.quote(view) + "\\b")
                        .matcher(statement)
                        .find()) {
                    return new ValidationException(
                            String.format(
                                    "SQL cannot read the view '%s' on Flink 2.3: it was made from"
                                            + " a Table with joinLateral(call(\"SNAPSHOT\","
                                            + " ...)), and SQL expands a view with Flink's own"
                                            + " conversion, which cannot translate the table"
                                            + " argument of a lateral call. Read the view with"
                                            + " the Table API (env.from(\"%s\")), make it from"
                                            + " orders.join(env.fromCall(\"SNAPSHOT\", ...),"
                                            + " predicate), or write it in SQL with JOIN LATERAL"
                                            + " SNAPSHOT(...).",
                                    view, view),
                            e);
                }
            }
            return e;
        }
    }

    private static ValidationException unsupportedModifyOperation(ModifyOperation operation) {
        return new ValidationException(
                String.format(
                        "A LATERAL SNAPSHOT join written with joinLateral(call(\"SNAPSHOT\","
                                + " ...)) cannot be used in this operation on Flink 2.3: %s. Join"
                                + " the snapshot as a table instead, with the same arguments and"
                                + " predicate: orders.join(env.fromCall(\"SNAPSHOT\", ...),"
                                + " predicate).",
                        operation.asSummaryString()));
    }
}
