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

package dev.lateralsnapshot.testutils.connectors;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import static org.apache.flink.util.Preconditions.checkState;

/**
 * The objects that tests share with the tasks of their jobs, by id. A MiniCluster or an embedded
 * cluster runs the tasks in the JVM of the test, so a source or a sink finds its channel, gate or
 * collection here, by the id that its table options carry.
 */
final class Registry<T> {

    private final String kind;
    private final Map<String, T> entries = new ConcurrentHashMap<>();

    /** A registry of one kind of object, named in the error for an unknown id. */
    Registry(String kind) {
        this.kind = kind;
    }

    /** Creates an object with a new id and registers it under that id. */
    T register(Function<String, T> create) {
        String id = UUID.randomUUID().toString();
        T entry = create.apply(id);
        entries.put(id, entry);
        return entry;
    }

    T get(String id) {
        T entry = entries.get(id);
        checkState(entry != null, "No open %s '%s'.", kind, id);
        return entry;
    }

    void remove(String id) {
        entries.remove(id);
    }
}
