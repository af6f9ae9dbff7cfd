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

package dev.lateralsnapshot.e2e;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The rows of the {@code print} sink in the TaskManagers' {@code .out} files. The files are never
 * truncated while the cluster runs; a {@link Mark} notes their line counts instead.
 */
final class PrintSinkOutput {

    /** The line count of every {@code .out} file at one moment. */
    static final class Mark {
        private final Map<Path, Integer> lineCounts;

        private Mark(Map<Path, Integer> lineCounts) {
            this.lineCounts = lineCounts;
        }
    }

    private final LocalFlinkCluster cluster;

    PrintSinkOutput(LocalFlinkCluster cluster) {
        this.cluster = cluster;
    }

    Mark mark() {
        Map<Path, Integer> counts = new HashMap<>();
        cluster.taskManagerOutput().forEach((file, lines) -> counts.put(file, lines.size()));
        return new Mark(counts);
    }

    /**
     * The rows printed since the mark, by order id (the order in which the probe side made them).
     */
    List<PrintedRow> rowsSince(Mark mark) {
        List<PrintedRow> rows = new ArrayList<>();
        cluster.taskManagerOutput()
                .forEach(
                        (file, lines) -> {
                            int from = mark.lineCounts.getOrDefault(file, 0);
                            for (String line : lines.subList(from, lines.size())) {
                                if (PrintedRow.isRow(line)) {
                                    rows.add(PrintedRow.parse(line));
                                }
                            }
                        });
        rows.sort(Comparator.comparingLong(PrintedRow::orderId));
        return rows;
    }

    /** Waits until the rows printed since the mark match, and returns them. */
    List<PrintedRow> awaitRowsSince(
            Mark mark, Duration timeout, String what, Predicate<List<PrintedRow>> matches) {
        return Wait.until(timeout, what, () -> rowsSince(mark), matches);
    }
}
