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

package dev.lateralsnapshot.runtime.operators.join.snapshot.broadcast;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every subtask of a broadcast join holds the whole build side on the heap and writes it into every
 * checkpoint: a build side that outgrows what was planned for shows here first, with a warning,
 * once, when a subtask's build side passes the threshold.
 */
final class BuildRowsWarning {

    private static final Logger LOG = LoggerFactory.getLogger(BuildRowsWarning.class);

    /** The option that sets the threshold, named in the warning. */
    static final String OPTION =
            "table.exec.lateral-snapshot.broadcast.build-rows-warning-threshold";

    /** 0 for never. */
    private final long threshold;

    private final int parallelism;
    private boolean logged;

    BuildRowsWarning(long threshold, int parallelism) {
        this.threshold = threshold;
        this.parallelism = parallelism;
    }

    /** Called with the build rows this subtask holds whenever they grew. */
    void check(long rows) {
        if (threshold > 0 && !logged && rows > threshold) {
            logged = true;
            LOG.warn(
                    "The broadcast build side of the LATERAL SNAPSHOT join holds {} rows in this"
                            + " subtask, more than the {} of '{}'. Every one of the {} subtasks"
                            + " keeps the whole build side on the heap, whatever the state"
                            + " backend, and writes it into every checkpoint. For a build side"
                            + " this large set 'table.exec.lateral-snapshot.build-distribution' ="
                            + " 'hash', or raise the threshold.",
                    rows,
                    threshold,
                    OPTION,
                    parallelism);
        }
    }
}
