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
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.SupportsIntermediateNoMoreSplits;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import static org.apache.flink.util.Preconditions.checkNotNull;
import static org.apache.flink.util.Preconditions.checkState;

/**
 * The enumerator context the wrapped source is created with: every call goes to the coordinator's
 * context, and on the way it notes two things for {@link CaughtUpBacklogEnumerator}.
 *
 * <ul>
 *   <li><b>When the source's initial discovery has gone quiet</b>: its {@code start()} has
 *       returned, every one-time call it made through {@code callAsync} or {@code
 *       runInCoordinatorThread} has run, its handler included, and every periodic call has run its
 *       handler once. Enumerators that discover splits do it so, off the coordinator thread, and
 *       assign what they found in the handler (Flink's Kafka source: a periodic discovery whose
 *       handler makes one more call, whose handler assigns); a call made in a handler is counted
 *       before that handler has run out, so the count cannot pass through 0 between the two.
 *   <li><b>Whether the source reports a backlog of its own</b>, as a HybridSource does on every
 *       start and switch: its calls go through unchanged, and the wrapper then leaves the backlog
 *       to it.
 * </ul>
 *
 * <p>The coordinator runs the handlers and the enumerator's methods on one thread; the count is
 * atomic only because a source may call {@code callAsync} from its own threads.
 */
final class DiscoveryTrackingContext<SplitT extends SourceSplit>
        implements SplitEnumeratorContext<SplitT>, SupportsIntermediateNoMoreSplits {

    private static final Logger LOG = LoggerFactory.getLogger(DiscoveryTrackingContext.class);

    private final SplitEnumeratorContext<SplitT> context;

    /** One-time calls not yet run, and periodic calls whose handler has not yet run once. */
    private final AtomicInteger pendingCalls = new AtomicInteger();

    private boolean started;
    private boolean quiet;
    private boolean ownBacklog;
    private Runnable onQuiet = () -> {};

    DiscoveryTrackingContext(SplitEnumeratorContext<SplitT> context) {
        this.context = checkNotNull(context);
    }

    /** The coordinator's context, for the wrapper's own calls. */
    SplitEnumeratorContext<SplitT> coordinatorContext() {
        return context;
    }

    /** What to run once, when the initial discovery has gone quiet. */
    void onQuiet(Runnable action) {
        onQuiet = checkNotNull(action);
    }

    /** The source's {@code start()} has returned. */
    void started() {
        started = true;
        runIfQuiet();
    }

    /** Whether the source has reported a backlog of its own. */
    boolean reportsOwnBacklog() {
        return ownBacklog;
    }

    private void runIfQuiet() {
        if (started && !quiet && pendingCalls.get() == 0) {
            quiet = true;
            onQuiet.run();
        }
    }

    /** Counts a call until its handler has run once. */
    private <T> BiConsumer<T, Throwable> counted(BiConsumer<T, Throwable> handler) {
        pendingCalls.incrementAndGet();
        AtomicBoolean first = new AtomicBoolean(true);
        return (result, error) -> {
            try {
                handler.accept(result, error);
            } finally {
                if (first.compareAndSet(true, false)) {
                    pendingCalls.decrementAndGet();
                    runIfQuiet();
                }
            }
        };
    }

    // ---- counted and noted ----

    @Override
    public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
        context.callAsync(callable, counted(handler));
    }

    @Override
    public <T> void callAsync(
            Callable<T> callable,
            BiConsumer<T, Throwable> handler,
            long initialDelayMillis,
            long periodMillis) {
        context.callAsync(callable, counted(handler), initialDelayMillis, periodMillis);
    }

    @Override
    public void runInCoordinatorThread(Runnable runnable) {
        BiConsumer<Void, Throwable> counted = counted((ignored, error) -> runnable.run());
        context.runInCoordinatorThread(() -> counted.accept(null, null));
    }

    @Override
    public void setIsProcessingBacklog(boolean isProcessingBacklog) {
        if (!ownBacklog) {
            ownBacklog = true;
            LOG.info("The source reports a backlog of its own; the wrapper leaves it to it.");
        }
        context.setIsProcessingBacklog(isProcessingBacklog);
    }

    // ---- the coordinator's, unchanged ----

    @Override
    public SplitEnumeratorMetricGroup metricGroup() {
        return context.metricGroup();
    }

    @Override
    public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
        context.sendEventToSourceReader(subtaskId, event);
    }

    @Override
    public void sendEventToSourceReader(int subtaskId, int attemptNumber, SourceEvent event) {
        context.sendEventToSourceReader(subtaskId, attemptNumber, event);
    }

    @Override
    public int currentParallelism() {
        return context.currentParallelism();
    }

    @Override
    public Map<Integer, ReaderInfo> registeredReaders() {
        return context.registeredReaders();
    }

    @Override
    public Map<Integer, Map<Integer, ReaderInfo>> registeredReadersOfAttempts() {
        return context.registeredReadersOfAttempts();
    }

    @Override
    public void assignSplits(SplitsAssignment<SplitT> newSplitAssignments) {
        context.assignSplits(newSplitAssignments);
    }

    @Override
    public void assignSplit(SplitT split, int subtask) {
        context.assignSplit(split, subtask);
    }

    @Override
    public void signalNoMoreSplits(int subtask) {
        context.signalNoMoreSplits(subtask);
    }

    /**
     * The coordinator's context supports this and a HybridSource checks for it by class, so the
     * wrapper always offers it; a context without it fails here, as the source would have on it.
     */
    @Override
    public void signalIntermediateNoMoreSplits(int subtask) {
        checkState(
                context instanceof SupportsIntermediateNoMoreSplits,
                "The context %s does not support intermediate no-more-splits signals.",
                context.getClass().getName());
        ((SupportsIntermediateNoMoreSplits) context).signalIntermediateNoMoreSplits(subtask);
    }
}
