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
import static org.assertj.core.api.Assertions.assertThat;

/** Guards for {@link JoinLateralResolution}: where the Table API resolves a lateral join's call. */
class JoinLateralResolutionTest {

    @Test
    void lateralJoinsResolveTheirCallInOperationTreeBuilder() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql(createTable("orders", "currency STRING", "'connector' = 'datagen'"));
        Table orders = env.from("orders");
        ResolutionProbe.resolvingJoinLateral.clear();

        Table lateral = orders.joinLateral(call(ResolutionProbe.class, $("currency")));
        orders.leftOuterJoinLateral(call(ResolutionProbe.class, $("currency")));

        assertThat(ResolutionProbe.resolvingJoinLateral)
                .as(
                        "the Table API no longer resolves the call of joinLateral and"
                                + " leftOuterJoinLateral inside %s#%s, so SNAPSHOT cannot point"
                                + " those calls to the supported form",
                        JoinLateralResolution.RESOLVING_CLASS,
                        JoinLateralResolution.RESOLVING_METHOD)
                .isNotEmpty()
                .containsOnly(true);

        ResolutionProbe.resolvingJoinLateral.clear();
        lateral.explain();
        assertThat(ResolutionProbe.resolvingJoinLateral)
                .as("the planner asks for the type inference outside of joinLateral")
                .isNotEmpty()
                .containsOnly(false);
    }

    /** Records, per resolution, whether it happens for a lateral join. */
    public static class ResolutionProbe extends TableFunction<String> {

        static final List<Boolean> resolvingJoinLateral = new ArrayList<>();

        public void eval(String text) {
            collect(text);
        }

        @Override
        public TypeInference getTypeInference(DataTypeFactory typeFactory) {
            resolvingJoinLateral.add(JoinLateralResolution.isInProgress());
            return super.getTypeInference(typeFactory);
        }
    }
}
