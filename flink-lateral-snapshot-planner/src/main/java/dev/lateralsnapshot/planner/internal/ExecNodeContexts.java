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

import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;

/**
 * The context of an exec node of this library. {@code ExecNodeContext#newContext(Class)} only
 * accepts the exec nodes in Flink's list ({@code ExecNodeMetadataUtil#execNodes()}), which holds
 * this library's node only once {@link ExecNodeRegistry} has registered it; the constructor Flink
 * uses when it reads a compiled plan takes the type in its JSON form, {@code <name>_<version>},
 * without that check. So a node is created the same way whether it is planned or read from a plan.
 */
public final class ExecNodeContexts {

    private ExecNodeContexts() {}

    /** A new, unique exec node id, as Flink numbers its own exec nodes. */
    public static int newNodeId() {
        return ExecNodeContext.newNodeId();
    }

    /** The context of an exec node of the given type, {@code <name>_<version>}. */
    public static ExecNodeContext of(String type) {
        return new ExecNodeContext(type);
    }
}
