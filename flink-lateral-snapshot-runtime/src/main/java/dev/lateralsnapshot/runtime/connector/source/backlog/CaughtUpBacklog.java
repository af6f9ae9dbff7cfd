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

package dev.lateralsnapshot.runtime.connector.source.backlog;

import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceSplit;

import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * Makes an unbounded FLIP-27 source report a backlog ({@code isProcessingBacklog}) from its start
 * until every one of its readers has caught up, for sources that report none of their own. The join
 * ends its load phase when its build input's backlog ends; the planner wraps the build side's
 * source with this. The package comment says how a reader tells that it has caught up.
 */
public final class CaughtUpBacklog {

    private CaughtUpBacklog() {}

    /**
     * The source, made to report a backlog until its readers have caught up; the source itself when
     * it is bounded. A bounded source needs no backlog: it ends, and its final watermark tells the
     * join so. A source that is already wrapped is returned as it is, so wrapping twice wraps once.
     */
    public static <T, SplitT extends SourceSplit, EnumChkT> Source<T, SplitT, EnumChkT> wrap(
            Source<T, SplitT, EnumChkT> source) {
        checkNotNull(source);
        if (source.getBoundedness() == Boundedness.BOUNDED || isWrapped(source)) {
            return source;
        }
        return CaughtUpBacklogSource.of(source);
    }

    /** Whether the source was made so by wrap (for the planner, to wrap once). */
    public static boolean isWrapped(Source<?, ?, ?> source) {
        return source instanceof CaughtUpBacklogSource;
    }
}
