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
import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.Test;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.apache.flink.table.api.Expressions.$;
import static org.assertj.core.api.Assertions.assertThat;

/** Guards for {@link TableEnvironments}: the environment behind a Table API table. */
class TableEnvironmentsTest {

    @Test
    void environmentOfATable() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql(createTable("orders", "currency STRING", "'connector' = 'datagen'"));
        assertThat(TableEnvironments.of(env.from("orders")))
                .as("a table of Flink's Table API is no longer a TableImpl of its environment")
                .isSameAs(env);
        assertThat(TableEnvironments.of(env.from("orders").select($("currency")))).isSameAs(env);
    }
}
