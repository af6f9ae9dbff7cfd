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

import org.apache.flink.types.Row;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The test's end of a {@link CollectingSink}, which a {@code 'test-collect'} table writes to: the
 * rows its sink subtasks received, in the order they arrived. Rows of one sink subtask keep the
 * order in which the subtask received them.
 */
public final class CollectedRows implements AutoCloseable {

    private static final Registry<CollectedRows> COLLECTIONS = new Registry<>("collection");

    private final String id;
    private final List<Row> rows = new ArrayList<>();

    private CollectedRows(String id) {
        this.id = id;
    }

    /** Opens a new, empty collection; pass {@link #id()} as the table option {@code 'sink'}. */
    public static CollectedRows open() {
        return COLLECTIONS.register(CollectedRows::new);
    }

    static CollectedRows get(String id) {
        return COLLECTIONS.get(id);
    }

    public String id() {
        return id;
    }

    synchronized void add(Row row) {
        rows.add(row);
    }

    /** A copy of the rows received so far, as {@code Row#toString()}: {@code +I[1, A, 1.0]}. */
    public synchronized List<String> rows() {
        return rows.stream().map(Row::toString).collect(Collectors.toList());
    }

    /** A copy of the rows received from the {@code from}-th on, for a program that reads them. */
    public synchronized List<Row> received(int from) {
        return new ArrayList<>(rows.subList(from, rows.size()));
    }

    public synchronized int size() {
        return rows.size();
    }

    @Override
    public void close() {
        COLLECTIONS.remove(id);
    }
}
