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

import org.apache.flink.table.api.TableException;
import org.apache.flink.table.planner.plan.nodes.exec.common.CommonExecCalc;

import org.apache.calcite.rex.RexNode;

import javax.annotation.Nullable;

import java.lang.reflect.Field;
import java.util.List;

/**
 * The projection and condition of Flink's {@code Calc} exec node. {@code CommonExecCalc} keeps them
 * in the protected fields {@value CommonExecCalc#FIELD_NAME_PROJECTION} and {@value
 * CommonExecCalc#FIELD_NAME_CONDITION}, which its JSON form names after them, and has no getter;
 * they are read by reflection.
 */
public final class ExecCalcs {

    static final String PROJECTION_FIELD = "projection";
    static final String CONDITION_FIELD = "condition";

    private ExecCalcs() {}

    /** The expressions of the calc's output columns, over its input row. */
    @SuppressWarnings("unchecked")
    public static List<RexNode> projection(CommonExecCalc calc) {
        return (List<RexNode>) read(calc, PROJECTION_FIELD);
    }

    /** The calc's filter, over its input row; null for none. */
    @Nullable
    public static RexNode condition(CommonExecCalc calc) {
        return (RexNode) read(calc, CONDITION_FIELD);
    }

    static Field field(String name) throws NoSuchFieldException {
        Field field = CommonExecCalc.class.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }

    private static Object read(CommonExecCalc calc, String name) {
        try {
            return field(name).get(calc);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new TableException(
                    String.format(
                            "LATERAL SNAPSHOT could not read the field '%s' of Flink's %s.",
                            name, CommonExecCalc.class.getName()),
                    e);
        }
    }
}
