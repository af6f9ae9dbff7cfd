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

import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Flink's mock enumerator context, which also writes down, in order, the backlog reports, the
 * splits assigned and the events sent to readers, and keeps the work given to the coordinator
 * thread until the test runs it. Flink's mock runs the handlers of {@code callAsync} on a thread of
 * its own when the test asks; the test waits for them, so they never run at the same time as the
 * test's calls.
 */
final class RecordingEnumeratorContext<SplitT extends SourceSplit>
        extends MockSplitEnumeratorContext<SplitT> {

    /** The backlog reports, in order. */
    final List<Boolean> backlog = Collections.synchronizedList(new ArrayList<>());

    /** The splits assigned and the events sent, in order: "split-0 to 0", "event to 1". */
    final List<String> sent = Collections.synchronizedList(new ArrayList<>());

    private final List<Runnable> coordinatorThreadWork = new ArrayList<>();

    RecordingEnumeratorContext(int parallelism) {
        super(parallelism);
    }

    /** Registers the reader of the subtask, as the coordinator does before it calls addReader. */
    void register(int subtask) {
        registerReader(new ReaderInfo(subtask, "localhost"));
    }

    /** Runs the work given to the coordinator thread so far. */
    void runCoordinatorThreadWork() {
        List<Runnable> work = new ArrayList<>(coordinatorThreadWork);
        coordinatorThreadWork.clear();
        work.forEach(Runnable::run);
    }

    @Override
    public void setIsProcessingBacklog(boolean isProcessingBacklog) {
        backlog.add(isProcessingBacklog);
    }

    @Override
    public void assignSplits(SplitsAssignment<SplitT> assignment) {
        assignment
                .assignment()
                .forEach(
                        (subtask, splits) ->
                                splits.forEach(
                                        split -> sent.add(split.splitId() + " to " + subtask)));
        super.assignSplits(assignment);
    }

    @Override
    public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
        sent.add(event + " to " + subtaskId);
        super.sendEventToSourceReader(subtaskId, event);
    }

    @Override
    public void runInCoordinatorThread(Runnable runnable) {
        coordinatorThreadWork.add(runnable);
    }
}
