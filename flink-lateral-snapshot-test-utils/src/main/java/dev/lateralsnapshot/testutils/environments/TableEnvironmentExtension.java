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

package dev.lateralsnapshot.testutils.environments;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.util.FileUtils;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * Hands a test a fresh table environment that the test class builds, with the tables it needs:
 * register the extension in a static field with {@code @RegisterExtension}, and declare a {@link
 * TableEnvironment} parameter on a test, {@code @BeforeEach} or {@code @BeforeAll} method.
 *
 * <p>A test and its {@code @BeforeEach} methods get the same environment, the next test another
 * one. An environment first asked for by a {@code @BeforeAll} method serves the whole class, every
 * test included. Each environment gets an empty directory for the files of its tables, deleted when
 * the test (or the class) is done.
 *
 * <p>The class builds the environment, not this extension: this module cannot see the planner, so
 * only the class can install the join in it.
 */
public final class TableEnvironmentExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(TableEnvironmentExtension.class);

    private final Function<Path, TableEnvironment> environment;

    /**
     * @param environment builds an environment whose tables keep their files in the directory it is
     *     given
     */
    public TableEnvironmentExtension(Function<Path, TableEnvironment> environment) {
        this.environment = environment;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == TableEnvironment.class;
    }

    @Override
    public TableEnvironment resolveParameter(ParameterContext parameter, ExtensionContext context) {
        // The store of a test's context falls back to its class's, which is what lets an
        // environment of a @BeforeAll method serve every test.
        return context.getStore(NAMESPACE)
                .getOrComputeIfAbsent(
                        EnvironmentAndDirectory.class,
                        key -> new EnvironmentAndDirectory(environment),
                        EnvironmentAndDirectory.class)
                .env;
    }

    /** An environment and its directory, which JUnit deletes when it closes the context's store. */
    private static final class EnvironmentAndDirectory implements AutoCloseable {

        private final Path directory;
        private final TableEnvironment env;

        private EnvironmentAndDirectory(Function<Path, TableEnvironment> environment) {
            try {
                directory = Files.createTempDirectory("table-environment");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            env = environment.apply(directory);
        }

        @Override
        public void close() throws IOException {
            FileUtils.deleteDirectory(directory.toFile());
        }
    }
}
