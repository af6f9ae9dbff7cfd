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

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Guards for {@link ExecNodeCompilation}: Flink's exec nodes keep their compiled mark in a field.
 */
class ExecNodeCompilationTest {

    @Test
    void theMarkIsABooleanFieldOfTheNode() throws NoSuchFieldException {
        Field field = ExecNodeCompilation.field();
        assertThat(field.getType())
                .as("the compiled mark of ExecNodeBase changed its type")
                .isEqualTo(boolean.class);
        assertThat(Modifier.isStatic(field.getModifiers())).isFalse();
    }

    @Test
    void readsTheMarkThatSetCompiledSets() {
        TestExecNodes.TestExecNode node = new TestExecNodes.TestExecNode("compilation-test_1") {};
        assertThat(ExecNodeCompilation.isCompiled(node)).isFalse();

        node.setCompiled(true);
        assertThat(ExecNodeCompilation.isCompiled(node)).isTrue();

        node.setCompiled(false);
        assertThat(ExecNodeCompilation.isCompiled(node)).isFalse();
    }
}
