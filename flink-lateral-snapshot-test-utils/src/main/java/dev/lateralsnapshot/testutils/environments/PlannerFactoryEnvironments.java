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

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.function.Supplier;

/**
 * Table environments whose planner comes from another planner factory in the place of Flink's
 * {@code DefaultPlannerFactory}, as in the drop-in jar, whose embedded planner lists the library's
 * factory there. Flink finds the planner factory through the thread's context class loader ({@code
 * PlannerFactoryUtil}); the environment is created with a class loader whose factory service file
 * is the class path's with that one line changed.
 */
public final class PlannerFactoryEnvironments {

    /** Flink's planner factory, which the service file of Flink's planner lists. */
    public static final String DEFAULT_PLANNER_FACTORY =
            "org.apache.flink.table.planner.delegation.DefaultPlannerFactory";

    private static final String FACTORY_SERVICES =
            "META-INF/services/org.apache.flink.table.factories.Factory";

    private PlannerFactoryEnvironments() {}

    /** An environment whose planner the factory of the given class name creates. */
    public static TableEnvironment create(EnvironmentSettings settings, String plannerFactory) {
        return create(plannerFactory, () -> TableEnvironment.create(settings));
    }

    /**
     * An environment that {@code create} makes, a {@code StreamTableEnvironment} for example, whose
     * planner the factory of the given class name creates.
     */
    public static <T extends TableEnvironment> T create(String plannerFactory, Supplier<T> create) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(listing(plannerFactory));
        try {
            return create.get();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    private static ClassLoader listing(String plannerFactory) {
        ClassLoader parent = PlannerFactoryEnvironments.class.getClassLoader();
        try {
            List<String> factories = new ArrayList<>();
            boolean replaced = false;
            for (URL url : Collections.list(parent.getResources(FACTORY_SERVICES))) {
                try (BufferedReader reader =
                        new BufferedReader(
                                new InputStreamReader(url.openStream(), StandardCharsets.UTF_8))) {
                    for (String line : (Iterable<String>) reader.lines()::iterator) {
                        String factory = line.trim();
                        if (factory.equals(DEFAULT_PLANNER_FACTORY)) {
                            factory = plannerFactory;
                            replaced = true;
                        }
                        if (!factory.isEmpty() && !factory.startsWith("#")) {
                            factories.add(factory);
                        }
                    }
                }
            }
            if (!replaced) {
                throw new IllegalStateException(
                        "No service file on the class path lists " + DEFAULT_PLANNER_FACTORY);
            }
            Path services = Files.createTempFile("planner-factories", ".txt");
            services.toFile().deleteOnExit();
            Files.write(services, factories);
            URL servicesUrl = services.toUri().toURL();
            return new ClassLoader(parent) {
                @Override
                public Enumeration<URL> getResources(String name) throws IOException {
                    return name.equals(FACTORY_SERVICES)
                            ? Collections.enumeration(List.of(servicesUrl))
                            : super.getResources(name);
                }
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
