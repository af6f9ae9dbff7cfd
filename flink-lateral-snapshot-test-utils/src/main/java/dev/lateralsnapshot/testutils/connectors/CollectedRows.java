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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The test's end of a {@code 'test-collect'} table: the rows its sink subtasks received, as {@code
 * Row#toString()} with the change kind ({@code +I[1, A, 1.0]}), in the order they arrived. Rows of
 * one sink subtask keep the order in which the subtask received them.
 */
public final class CollectedRows implements AutoCloseable {

    private static final Map<String, CollectedRows> SINKS = new ConcurrentHashMap<>();

    private final String id;
    private final List<String> rows = new ArrayList<>();

    private CollectedRows(String id) {
        this.id = id;
    }

    /** Opens a new, empty collection; pass {@link #id()} as the table option {@code 'sink'}. */
    public static CollectedRows open() {
        CollectedRows sink = new CollectedRows(UUID.randomUUID().toString());
        SINKS.put(sink.id, sink);
        return sink;
    }

    static CollectedRows get(String id) {
        CollectedRows sink = SINKS.get(id);
        if (sink == null) {
            throw new IllegalStateException("No open collection '" + id + "'.");
        }
        return sink;
    }

    public String id() {
        return id;
    }

    synchronized void add(String row) {
        rows.add(row);
    }

    /** A copy of the rows received so far. */
    public synchronized List<String> rows() {
        return new ArrayList<>(rows);
    }

    public synchronized int size() {
        return rows.size();
    }

    @Override
    public void close() {
        SINKS.remove(id);
    }
}
