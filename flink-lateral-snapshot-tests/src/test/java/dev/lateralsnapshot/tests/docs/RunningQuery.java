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

package dev.lateralsnapshot.tests.docs;

import org.apache.flink.api.common.JobID;
import org.apache.flink.table.api.internal.TableResultInternal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.utils.print.RowDataToStringConverter;
import org.apache.flink.util.CloseableIterator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A query that runs while the statements after it in a document run, like a query in a second SQL
 * Client: a thread takes its rows as they come, rendered as the SQL Client renders them, and the
 * document's output blocks take them in turn.
 */
final class RunningQuery implements AutoCloseable {

    /** The query's text, as documented. */
    final String sql;

    /** Whether rows start with their change flag, as in the SQL Client's streaming results. */
    final boolean streaming;

    final List<String> columns;

    private final JobID job;
    private final CloseableIterator<RowData> rows;
    private final BlockingQueue<List<String>> received = new LinkedBlockingQueue<>();
    private final Thread reader;
    private volatile boolean ended;
    private volatile Throwable failure;

    RunningQuery(String sql, boolean streaming, TableResultInternal result) {
        this.sql = sql;
        this.streaming = streaming;
        this.columns = result.getResolvedSchema().getColumnNames();
        this.job = result.getJobClient().orElseThrow().getJobID();
        this.rows = result.collectInternal();
        RowDataToStringConverter converter = result.getRowDataToStringConverter();
        this.reader =
                new Thread(
                        () -> {
                            try {
                                while (rows.hasNext()) {
                                    RowData row = rows.next();
                                    List<String> cells = new ArrayList<>();
                                    if (streaming) {
                                        cells.add(row.getRowKind().shortString());
                                    }
                                    cells.addAll(Arrays.asList(converter.convert(row)));
                                    received.add(cells);
                                }
                            } catch (Throwable t) {
                                failure = t;
                            } finally {
                                ended = true;
                            }
                        },
                        "docs-query-rows");
        reader.setDaemon(true);
        reader.start();
    }

    JobID job() {
        return job;
    }

    /** The next {@code count} rows; fails when they do not come within the timeout. */
    List<List<String>> take(int count, Duration timeout) throws InterruptedException {
        List<List<String>> taken = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (taken.size() < count) {
            List<String> row = received.poll(50, TimeUnit.MILLISECONDS);
            if (row != null) {
                taken.add(row);
                continue;
            }
            if (failure != null) {
                throw new AssertionError("The query failed after " + taken, failure);
            }
            if ((ended && received.isEmpty()) || System.nanoTime() > deadline) {
                throw new AssertionError(
                        String.format(
                                "Expected %d more rows, but the query %s after %s",
                                count,
                                ended ? "ended" : "gave nothing more within " + timeout,
                                taken));
            }
        }
        return taken;
    }

    /**
     * Waits a little for a bounded query to end, then returns the rows that came after the last
     * documented ones: there must be none.
     */
    List<List<String>> undocumentedRows(Duration grace) throws InterruptedException {
        reader.join(grace.toMillis());
        List<List<String>> rest = new ArrayList<>();
        received.drainTo(rest);
        return rest;
    }

    /** Cancels the query's job if it still runs. */
    @Override
    public void close() throws Exception {
        rows.close();
        reader.join(Duration.ofSeconds(30).toMillis());
    }
}
