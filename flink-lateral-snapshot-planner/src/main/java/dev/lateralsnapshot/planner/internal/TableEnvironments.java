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

import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.internal.TableImpl;

/**
 * The environment a Table API table belongs to. The public {@code Table} interface does not tell;
 * Flink's implementation of it, {@code TableImpl}, does.
 */
public final class TableEnvironments {

    private TableEnvironments() {}

    /** The environment of the table. */
    public static TableEnvironment of(Table table) {
        if (!(table instanceof TableImpl)) {
            throw new TableException(
                    String.format(
                            "LATERAL SNAPSHOT needs a table of Flink's Table API, but got %s.",
                            table.getClass().getName()));
        }
        return ((TableImpl) table).getTableEnvironment();
    }
}
