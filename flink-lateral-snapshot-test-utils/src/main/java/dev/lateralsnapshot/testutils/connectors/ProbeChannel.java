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

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;

import static org.apache.flink.util.Preconditions.checkArgument;
import static org.apache.flink.util.Preconditions.checkState;

/**
 * The test's end of a {@link ChannelSource}, which a {@code 'test-probe'} table reads: rows handed
 * to {@link #emit} come out of the source's subtasks, round-robin, so that a test decides exactly
 * which probe rows exist before and after a build-side change. The job runs in the test's JVM (a
 * MiniCluster), so the source finds the channel by its id in a static registry.
 */
public final class ProbeChannel implements AutoCloseable {

    private static final Registry<ProbeChannel> CHANNELS = new Registry<>("probe channel");

    private final String id;
    private final List<SubtaskQueue> queues;
    private int next;

    private ProbeChannel(String id, int parallelism) {
        this.id = id;
        this.queues = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            queues.add(new SubtaskQueue());
        }
    }

    /** Opens a channel for a source that runs with the given parallelism. */
    public static ProbeChannel open(int parallelism) {
        checkArgument(parallelism > 0, "The parallelism must be positive.");
        return CHANNELS.register(id -> new ProbeChannel(id, parallelism));
    }

    static ProbeChannel get(String id) {
        return CHANNELS.get(id);
    }

    /** The value of the table option {@code 'channel'}. */
    public String id() {
        return id;
    }

    int parallelism() {
        return queues.size();
    }

    SubtaskQueue queue(int subtask) {
        return queues.get(subtask);
    }

    /** Hands rows to the source subtasks, one after the other in turn. */
    public synchronized void emit(Row... rows) {
        for (Row row : rows) {
            queues.get(next).add(row);
            next = (next + 1) % queues.size();
        }
    }

    /**
     * Hands rows to one source subtask, which emits them in this order: for changes that must
     * arrive in order, such as a -U and its +U.
     */
    public void emitTo(int subtask, Row... rows) {
        SubtaskQueue queue = queues.get(subtask);
        for (Row row : rows) {
            queue.add(row);
        }
    }

    /**
     * Ends the source once each subtask has emitted the rows handed to it, as a bounded source
     * ends: for a job that must finish, like the demo's. No rows may follow.
     */
    public void end() {
        for (SubtaskQueue queue : queues) {
            queue.end();
        }
    }

    @Override
    public void close() {
        CHANNELS.remove(id);
    }

    /** The rows of one source subtask and a future that tells its reader when there are some. */
    static final class SubtaskQueue {
        private final Queue<Row> rows = new ArrayDeque<>();
        private CompletableFuture<Void> available = new CompletableFuture<>();
        private boolean ended;

        synchronized void add(Row row) {
            checkState(!ended, "The channel has ended.");
            rows.add(row);
            available.complete(null);
        }

        synchronized void end() {
            ended = true;
            available.complete(null);
        }

        /** Whether the channel has ended and the subtask has emitted every row handed to it. */
        synchronized boolean drained() {
            return ended && rows.isEmpty();
        }

        /** The next row, or null; once empty, {@link #available()} waits for the next row. */
        synchronized Row poll() {
            Row row = rows.poll();
            if (rows.isEmpty() && available.isDone()) {
                available = new CompletableFuture<>();
            }
            return row;
        }

        synchronized CompletableFuture<Void> available() {
            return available;
        }
    }
}
