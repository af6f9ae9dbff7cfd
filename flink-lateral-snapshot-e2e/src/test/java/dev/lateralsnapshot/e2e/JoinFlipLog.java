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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the LATERAL SNAPSHOT joins of a {@link LocalFlinkCluster} logged at their flips, from the
 * TaskManagers' log files: each join subtask logs at INFO how long it loaded, and then how many
 * buffered probe rows it joined and how long that took (docs/lateral-snapshot-join.md, "Metrics"),
 * which a metric polled every second may miss. The files are never truncated while the cluster
 * runs; a mark notes how far they were read.
 */
final class JoinFlipLog {

    /**
     * The flips logged since the mark, over all join subtasks: how long each loaded, and for each
     * that has joined its buffered rows how many and in how long.
     */
    record Flips(List<Long> loadPhaseMillis, List<Long> joinedRows, List<Long> drainMillis) {}

    private static final Pattern SWITCH =
            Pattern.compile("LATERAL SNAPSHOT join switches to the join phase after (\\d+) ms");
    private static final Pattern DRAIN =
            Pattern.compile("LATERAL SNAPSHOT join joined (\\d+) buffered probe rows in (\\d+) ms");

    private final LocalFlinkCluster cluster;
    private final Map<Path, Integer> mark = new HashMap<>();

    /** Starts reading at the current end of the cluster's TaskManager logs. */
    JoinFlipLog(LocalFlinkCluster cluster) {
        this.cluster = cluster;
        for (Path file : cluster.taskManagerLogs()) {
            mark.put(file, LocalFlinkCluster.readLines(file).size());
        }
    }

    /** The flips logged since this object was made. */
    Flips flips() {
        Flips flips = new Flips(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        for (Path file : cluster.taskManagerLogs()) {
            List<String> lines = LocalFlinkCluster.readLines(file);
            for (String line : lines.subList(mark.getOrDefault(file, 0), lines.size())) {
                Matcher switched = SWITCH.matcher(line);
                if (switched.find()) {
                    flips.loadPhaseMillis().add(Long.parseLong(switched.group(1)));
                }
                Matcher drained = DRAIN.matcher(line);
                if (drained.find()) {
                    flips.joinedRows().add(Long.parseLong(drained.group(1)));
                    flips.drainMillis().add(Long.parseLong(drained.group(2)));
                }
            }
        }
        return flips;
    }
}
