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

import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.ArgumentTrait;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.functions.ProcessTableFunction;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.Test;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;
import static org.apache.flink.table.api.Expressions.$;
import static org.apache.flink.table.api.Expressions.lit;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Guards for {@link ProcessTableFunctionSignature}: the system arguments of a process table
 * function and their place after the declared ones.
 */
class ProcessTableFunctionSignatureTest {

    @Test
    void systemArgumentsAreOnTimeAndUid() {
        assertThat(ProcessTableFunctionSignature.systemArgumentNames())
                .as(
                        "Flink's system arguments of process table functions changed;"
                                + " SnapshotProcessTableFunction reads the arguments of a"
                                + " resolved call by these names, after its declared ones")
                .containsExactly("on_time", "uid");
    }

    @Test
    void systemArgumentsFollowTheDeclaredArgumentsOfACall() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql(createTable("t", "k STRING", "'connector' = 'datagen'"));
        String plan =
                env.fromCall(
                                Echo.class,
                                env.from("t").asArgument("input"),
                                lit("x").asArgument("tag"))
                        .select($("k"))
                        .explain();
        assertThat(plan)
                .as(
                        "a resolved process table function call no longer lists its declared"
                                + " arguments first, then on_time and uid:%n%s",
                        plan)
                // input, tag, then on_time (not given) and uid (derived from the function name).
                .contains("$Echo*(TABLE(#0), _UTF-16LE'x', DEFAULT(), _UTF-16LE'Echo')");
    }

    /** Passes its rows through. */
    @DataTypeHint("ROW<k STRING>")
    public static class Echo extends ProcessTableFunction<Row> {
        public void eval(
                @ArgumentHint(name = "input", value = ArgumentTrait.ROW_SEMANTIC_TABLE) Row input,
                @ArgumentHint(name = "tag") String tag) {
            collect(input);
        }
    }
}
