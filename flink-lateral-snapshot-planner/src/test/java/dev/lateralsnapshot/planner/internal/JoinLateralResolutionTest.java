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

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.catalog.DataTypeFactory;
import org.apache.flink.table.functions.TableFunction;
import org.apache.flink.table.types.inference.TypeInference;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.apache.flink.table.api.Expressions.$;
import static org.apache.flink.table.api.Expressions.call;
import static org.apache.flink.table.api.Expressions.lit;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Guards for {@link JoinLateralResolution}: where the Table API resolves the call of a left outer
 * lateral join.
 */
class JoinLateralResolutionTest {

    @Test
    void onlyTheLeftOuterJoinWithAPredicateIsSeen() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql(createTable("orders", "currency STRING", "'connector' = 'datagen'"));
        Table orders = env.from("orders");

        ResolutionProbe.seen.clear();
        orders.leftOuterJoinLateral(call(ResolutionProbe.class, $("currency")), lit(true));
        assertThat(ResolutionProbe.seen)
                .as(
                        "Table#%s(call, predicate) no longer resolves the call on its own stack"
                                + " frame, so SNAPSHOT cannot point that form to leftOuterJoin",
                        JoinLateralResolution.LEFT_OUTER_METHOD)
                .isNotEmpty()
                .containsOnly(true);

        ResolutionProbe.seen.clear();
        Table inner = orders.joinLateral(call(ResolutionProbe.class, $("currency")));
        orders.joinLateral(call(ResolutionProbe.class, $("currency")), lit(true));
        orders.leftOuterJoinLateral(call(ResolutionProbe.class, $("currency")));
        inner.explain();
        assertThat(ResolutionProbe.seen)
                .as("the other lateral joins, and the planner, are taken for that form")
                .isNotEmpty()
                .containsOnly(false);
    }

    /**
     * Records, per resolution, whether it happens for a left outer lateral join with a predicate.
     */
    public static class ResolutionProbe extends TableFunction<String> {

        static final List<Boolean> seen = new ArrayList<>();

        public void eval(String text) {
            collect(text);
        }

        @Override
        public TypeInference getTypeInference(DataTypeFactory typeFactory) {
            seen.add(JoinLateralResolution.isLeftOuterJoinWithPredicate());
            return super.getTypeInference(typeFactory);
        }
    }
}
