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

package dev.lateralsnapshot.planner.delegation;

import dev.lateralsnapshot.planner.activation.LateralSnapshotActivation;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.delegation.PlannerFactory;
import org.apache.flink.table.planner.delegation.DefaultPlannerFactory;

import java.util.Set;

/**
 * The planner factory of the drop-in jar for Flink's {@code lib/}: Flink's own planner with the
 * LATERAL SNAPSHOT join installed, for SQL and for the Table API's {@code fromCall("SNAPSHOT",
 * ...)} and {@code joinLateral(call("SNAPSHOT", ...), predicate)}, so every planner that Flink
 * creates (SQL Client, SQL Gateway, Table API programs) knows the join without code or {@code SET}.
 *
 * <p>It answers to Flink's fixed identifier {@value PlannerFactory#DEFAULT_IDENTIFIER}, so it must
 * replace {@link DefaultPlannerFactory} in the service file rather than sit next to it: two
 * factories with that identifier make Flink fail with "Multiple factories". Only the drop-in jar's
 * embedded planner lists it; the planner module's own jar does not, so a Table API program that has
 * this library next to {@code flink-table-planner} keeps Flink's factory and calls {@code
 * LateralSnapshot.install} itself.
 *
 * <p>In streaming mode the planner is Flink's stream planner with one more exec-graph processor,
 * which fuses the projection after a join into the join's operator: the planner that {@code
 * LateralSnapshot.install} puts in an environment of Flink's own factory, so that a statement gets
 * the same job either way ({@link LateralSnapshotActivation}).
 */
public final class LateralSnapshotPlannerFactory implements PlannerFactory {

    private final PlannerFactory flinkPlannerFactory = new DefaultPlannerFactory();

    @Override
    public String factoryIdentifier() {
        return flinkPlannerFactory.factoryIdentifier();
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return flinkPlannerFactory.requiredOptions();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return flinkPlannerFactory.optionalOptions();
    }

    @Override
    public Planner create(Context context) {
        return LateralSnapshotActivation.createPlanner(context, flinkPlannerFactory);
    }
}
