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

import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeMetadata;
import org.apache.flink.table.planner.plan.nodes.exec.serde.CompiledPlanSerdeUtil;
import org.apache.flink.table.planner.plan.utils.ExecNodeMetadataUtil;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.apache.flink.util.Preconditions.checkArgument;

/**
 * Lists an exec node of this library among Flink's own, so that compiled plans can hold it: Flink
 * writes it as any other node, and reads it back from the {@code type} of the node in the plan
 * ({@code <name>_<version>} of its {@link ExecNodeMetadata}).
 *
 * <p>Flink keeps its exec nodes in two static collections of {@link ExecNodeMetadataUtil}: the set
 * {@code execNodes()}, which {@code ExecNodeContext#newContext} checks, and the map from name and
 * version to class that Jackson's type resolver reads when a plan is loaded; without an entry there
 * loading fails with a {@code NullPointerException}. Both are public and mutable, {@code
 * addTestNode} fills the map from the class's annotations. Neither collection is thread-safe, and
 * {@code addTestNode} throws for a name and version it knows, so each class is registered once per
 * class loader, under a lock. {@code CompiledPlanSerdeUtil} iterates the set once, when it is
 * initialized; it is initialized before the set changes, so that the iteration cannot meet the
 * change.
 */
public final class ExecNodeRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(ExecNodeRegistry.class);

    private static final Set<Class<?>> REGISTERED = ConcurrentHashMap.newKeySet();

    private ExecNodeRegistry() {}

    /**
     * Registers exec node classes, each annotated with {@link ExecNodeMetadata} (or several of
     * them) and with a {@code JsonCreator} constructor; calling it again, from any thread, changes
     * nothing.
     */
    @SafeVarargs
    public static void register(Class<? extends ExecNode<?>>... execNodes) {
        for (Class<? extends ExecNode<?>> execNode : execNodes) {
            if (!REGISTERED.contains(execNode)) {
                registerOnce(execNode);
            }
        }
    }

    private static synchronized void registerOnce(Class<? extends ExecNode<?>> execNode) {
        if (REGISTERED.contains(execNode)) {
            return;
        }
        List<ExecNodeMetadata> metadata =
                ExecNodeMetadataUtil.extractMetadataFromAnnotation(execNode);
        checkArgument(!metadata.isEmpty(), "%s has no @ExecNodeMetadata.", execNode.getName());
        initialize(CompiledPlanSerdeUtil.class);
        List<Class<?>> known = new ArrayList<>();
        for (ExecNodeMetadata version : metadata) {
            Class<?> registered =
                    ExecNodeMetadataUtil.retrieveExecNode(version.name(), version.version());
            if (registered != null) {
                known.add(registered);
            }
        }
        if (known.isEmpty()) {
            ExecNodeMetadataUtil.execNodes().add(execNode);
            ExecNodeMetadataUtil.addTestNode(execNode);
        } else if (!known.stream().allMatch(execNode::equals)) {
            // The same library in a second class loader above one Flink planner: compiled plans
            // keep loading with the classes of the first.
            LOG.warn(
                    "{} of {} is not registered for compiled plans: its exec node types are"
                            + " registered already, by {}.",
                    execNode.getName(),
                    execNode.getClassLoader(),
                    known);
        }
        REGISTERED.add(execNode);
    }

    private static void initialize(Class<?> flinkClass) {
        try {
            Class.forName(flinkClass.getName(), true, flinkClass.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
