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
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;

import java.lang.reflect.Field;

/**
 * Whether an exec node was planned for a compiled plan. Flink's exec graph generator marks every
 * node with {@code ExecNode#setCompiled}, and the node's operator gets a uid from it (with Flink's
 * default {@code table.exec.uid.generation}, only in a compiled plan). {@code ExecNodeBase} keeps
 * the mark in the private field {@value #COMPILED_FIELD} and has no getter, so a node that takes
 * the place of another reads it there, by reflection, to keep the other's uid.
 */
public final class ExecNodeCompilation {

    static final String COMPILED_FIELD = "isCompiled";

    private ExecNodeCompilation() {}

    /** Whether the node was marked as part of a compiled plan. */
    public static boolean isCompiled(ExecNodeBase<?> node) {
        try {
            return field().getBoolean(node);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new TableException(
                    String.format(
                            "LATERAL SNAPSHOT could not read the field '%s' of Flink's %s.",
                            COMPILED_FIELD, ExecNodeBase.class.getName()),
                    e);
        }
    }

    static Field field() throws NoSuchFieldException {
        Field field = ExecNodeBase.class.getDeclaredField(COMPILED_FIELD);
        field.setAccessible(true);
        return field;
    }
}
