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

package dev.lateralsnapshot.benchmark.enrichment;

import dev.lateralsnapshot.benchmark.enrichment.RunSpec.Backend;
import dev.lateralsnapshot.benchmark.enrichment.RunSpec.Mode;
import dev.lateralsnapshot.benchmark.enrichment.RunSpec.Scenario;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads results.csv back into runs, for {@code --plan=report}: the columns of {@link
 * RunResult#csvHeader()}, and the shorter lines of results written before the last columns existed,
 * so that the docs of an older run can still be written again from its own results.
 */
final class ResultsCsv {

    /** The column of {@link RunResult#csvHeader()} that holds the parallelism. */
    private static final int PARALLELISM_COLUMN = 32;

    /** The column that holds the interval during the backlog, the first of the last four. */
    private static final int BACKLOG_COLUMN = 36;

    /** The column that holds the time to the last joined row, the first of a scale run's six. */
    private static final int SCALE_COLUMN = 40;

    private ResultsCsv() {}

    static List<RunResult> read(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        List<RunResult> results = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            List<String> f = split(line);
            // Results written before the parallelism was a column ran at the default of 2.
            int parallelism =
                    f.size() > PARALLELISM_COLUMN
                            ? Integer.parseInt(f.get(PARALLELISM_COLUMN))
                            : new Settings().parallelism;
            RunSpec spec =
                    new RunSpec(
                            Scenario.parse(f.get(0)),
                            Mode.valueOf(f.get(1)),
                            Contender.valueOf(f.get(2)),
                            Backend.valueOf(f.get(3)),
                            Integer.parseInt(f.get(4)),
                            parallelism,
                            // Results written before the column existed set no such interval.
                            f.size() > BACKLOG_COLUMN
                                    ? Integer.parseInt(f.get(BACKLOG_COLUMN))
                                    : 0);
            RunResult r = new RunResult(spec);
            r.error = f.get(5).isEmpty() ? null : f.get(5);
            int i = 6;
            r.probeRows = Long.parseLong(f.get(i++));
            r.measuredSeconds = Double.parseDouble(f.get(i++));
            r.rate = Double.parseDouble(f.get(i++));
            r.rateFirstHalf = Double.parseDouble(f.get(i++));
            r.rateSecondHalf = Double.parseDouble(f.get(i++));
            r.timeBounded = Boolean.parseBoolean(f.get(i++));
            r.sinkRows = Long.parseLong(f.get(i++));
            r.sinkRetractions = Long.parseLong(f.get(i++));
            r.latencyCount = Long.parseLong(f.get(i++));
            r.p50 = Double.parseDouble(f.get(i++));
            r.p99 = Double.parseDouble(f.get(i++));
            r.p999 = Double.parseDouble(f.get(i++));
            r.maxLatency = Double.parseDouble(f.get(i++));
            r.stateSizeBytes = Long.parseLong(f.get(i++));
            r.checkpointsCompleted = Long.parseLong(f.get(i++));
            r.checkpointsFailed = Long.parseLong(f.get(i++));
            r.peakHeapUsed = Long.parseLong(f.get(i++));
            r.peakHeapAfterGc = Long.parseLong(f.get(i++));
            r.bufferedAtFlip = Long.parseLong(f.get(i++));
            r.loadPhaseSeconds = Double.parseDouble(f.get(i++));
            r.loadCheckpointsCompleted = Long.parseLong(f.get(i++));
            r.loadCheckpointsFailed = Long.parseLong(f.get(i++));
            r.drainMillis = Double.parseDouble(f.get(i++));
            r.drainRate = Double.parseDouble(f.get(i++));
            if (i < f.size()) {
                r.checkpointFailure = f.get(i).isEmpty() ? null : f.get(i);
            }
            // Results written before the column existed end here.
            if (++i < f.size()) {
                r.drainCheckpointsCompleted = Long.parseLong(f.get(i));
            }
            i = PARALLELISM_COLUMN + 1;
            if (i + 2 < f.size()) {
                r.joinSubtasks = Integer.parseInt(f.get(i++));
                r.maxJoinShare = Double.parseDouble(f.get(i++));
                r.joinedRate = Double.parseDouble(f.get(i));
            }
            i = BACKLOG_COLUMN + 1;
            if (i + 2 < f.size()) {
                r.loadCheckpointedBytes = Long.parseLong(f.get(i++));
                r.loadPhaseGaugeMillis = Long.parseLong(f.get(i++));
                r.loadCompletedReason = Long.parseLong(f.get(i));
            }
            i = SCALE_COLUMN;
            if (i + 5 < f.size()) {
                r.lastRowSeconds = Double.parseDouble(f.get(i++));
                r.buildRowsPerSecond = Double.parseDouble(f.get(i++));
                r.localStateBytes = Long.parseLong(f.get(i++));
                r.scaleCheckpointsCompleted = Long.parseLong(f.get(i++));
                r.scaleCheckpointedBytes = Long.parseLong(f.get(i++));
                r.scaleCheckpointMaxMillis = Long.parseLong(f.get(i++));
                if (i < f.size()) {
                    r.restoreSeconds = Double.parseDouble(f.get(i));
                }
            }
            results.add(r);
        }
        return results;
    }

    /** The fields of a line; {@link RunResult#csv()} quotes the texts that may hold a comma. */
    private static List<String> split(String line) {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (char c : line.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                fields.add(field.toString());
                field.setLength(0);
            } else {
                field.append(c);
            }
        }
        fields.add(field.toString());
        return fields;
    }
}
