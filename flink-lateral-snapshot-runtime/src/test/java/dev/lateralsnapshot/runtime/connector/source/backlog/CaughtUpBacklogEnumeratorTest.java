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

import dev.lateralsnapshot.runtime.connector.source.backlog.FixedRecordsSource.Split;

import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.mocks.MockSourceSplit;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumerator;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import static dev.lateralsnapshot.runtime.connector.source.backlog.ReaderCaughtUpEvent.Kind.IDLE_WITHOUT_GAUGE;
import static dev.lateralsnapshot.runtime.connector.source.backlog.ReaderCaughtUpEvent.Kind.NO_SPLIT;
import static dev.lateralsnapshot.runtime.connector.source.backlog.ReaderCaughtUpEvent.Kind.PENDING_RECORDS_ZERO;
import static dev.lateralsnapshot.runtime.connector.source.backlog.ReaderCaughtUpEvent.Kind.READING_AGAIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The enumerator of a wrapped source: when it reports a backlog (once a reader finds the gauge set)
 * and its end, when it tells the readers that their assignment is complete, and what it leaves to
 * the source's enumerator.
 */
class CaughtUpBacklogEnumeratorTest {

    private static final String COMPLETE = "AssignmentCompleteEvent";
    private static final String ENDED = "BacklogEndedEvent";

    private final FixedRecordsSource source = new FixedRecordsSource(10);

    private ScriptedEnumerator scripted;

    @Test
    void reportsABacklogFromTheFirstGaugeUntilEveryReaderHasCaughtUp() throws Throwable {
        try (RecordingEnumeratorContext<Split> context = new RecordingEnumeratorContext<>(2)) {
            SplitEnumerator<Split, Set<Split>> enumerator = started(context);
            assertThat(context.backlog).isEmpty();

            enumerator.handleSourceEvent(1, new PendingRecordsPublishedEvent());
            enumerator.handleSourceEvent(0, new PendingRecordsPublishedEvent());
            assertThat(context.backlog).containsExactly(true);

            enumerator.handleSourceEvent(1, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            assertThat(context.backlog).containsExactly(true);

            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            assertThat(context.backlog).containsExactly(true, false);
        }
    }

    @Test
    void aReaderIdleWithoutGaugeHasCaughtUpOnceAnotherHasByItsGauge() throws Throwable {
        try (RecordingEnumeratorContext<Split> context = new RecordingEnumeratorContext<>(2)) {
            SplitEnumerator<Split, Set<Split>> enumerator = started(context);
            enumerator.handleSourceEvent(0, new PendingRecordsPublishedEvent());
            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            enumerator.handleSourceEvent(1, new ReaderCaughtUpEvent(IDLE_WITHOUT_GAUGE));

            assertThat(context.backlog).containsExactly(true, false);
            assertThat(context.sent).endsWith(COMPLETE + " to 1", ENDED + " to 1");
        }
    }

    @Test
    void theOrderOfTheReportsDoesNotMatter() throws Throwable {
        try (RecordingEnumeratorContext<Split> context = new RecordingEnumeratorContext<>(2)) {
            SplitEnumerator<Split, Set<Split>> enumerator = started(context);
            enumerator.handleSourceEvent(1, new ReaderCaughtUpEvent(IDLE_WITHOUT_GAUGE));
            enumerator.handleSourceEvent(0, new PendingRecordsPublishedEvent());
            assertThat(context.backlog).containsExactly(true);

            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            assertThat(context.backlog).containsExactly(true, false);
            assertThat(context.sent).endsWith(COMPLETE + " to 1", ENDED + " to 1");
        }
    }

    @Test
    void reportsNoBacklogWhileNoReaderHasAGauge() throws Throwable {
        try (RecordingEnumeratorContext<Split> context = new RecordingEnumeratorContext<>(2)) {
            SplitEnumerator<Split, Set<Split>> enumerator = started(context);
            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(IDLE_WITHOUT_GAUGE));
            enumerator.handleSourceEvent(1, new ReaderCaughtUpEvent(IDLE_WITHOUT_GAUGE));
            assertThat(context.backlog).isEmpty();
            assertThat(context.sent).doesNotContain(ENDED + " to 0", ENDED + " to 1");

            // Records arrive later: the backlog starts, and ends once they are read.
            enumerator.handleSourceEvent(1, new ReaderCaughtUpEvent(READING_AGAIN));
            enumerator.handleSourceEvent(1, new PendingRecordsPublishedEvent());
            assertThat(context.backlog).containsExactly(true);

            enumerator.handleSourceEvent(1, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            assertThat(context.backlog).containsExactly(true, false);
            assertThat(context.sent).endsWith(ENDED + " to 0");
        }
    }

    @Test
    void aRestartedReaderIdleWithoutItsGaugeYetKeepsTheBacklog() throws Throwable {
        try (RecordingEnumeratorContext<Split> context = new RecordingEnumeratorContext<>(2)) {
            SplitEnumerator<Split, Set<Split>> enumerator = started(context);
            enumerator.handleSourceEvent(0, new PendingRecordsPublishedEvent());
            enumerator.handleSourceEvent(1, new ReaderCaughtUpEvent(NO_SPLIT));

            // Subtask 0 fails before it caught up; its new reader has not fetched yet.
            context.unregisterReader(0);
            enumerator.addSplitsBack(List.of(new Split(0, 0, 10)), 0);
            addReader(enumerator, context, 0);
            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(IDLE_WITHOUT_GAUGE));
            assertThat(context.backlog).containsExactly(true);

            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(READING_AGAIN));
            enumerator.handleSourceEvent(0, new PendingRecordsPublishedEvent());
            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            assertThat(context.backlog).containsExactly(true, false);
        }
    }

    @Test
    void aReaderThatReadsAgainBeforeTheEndKeepsTheBacklog() throws Throwable {
        try (RecordingEnumeratorContext<Split> context = new RecordingEnumeratorContext<>(2)) {
            SplitEnumerator<Split, Set<Split>> enumerator = started(context);
            enumerator.handleSourceEvent(1, new ReaderCaughtUpEvent(IDLE_WITHOUT_GAUGE));
            enumerator.handleSourceEvent(1, new ReaderCaughtUpEvent(READING_AGAIN));
            enumerator.handleSourceEvent(0, new PendingRecordsPublishedEvent());
            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            assertThat(context.backlog).containsExactly(true);

            enumerator.handleSourceEvent(1, new ReaderCaughtUpEvent(IDLE_WITHOUT_GAUGE));
            assertThat(context.backlog).containsExactly(true, false);
        }
    }

    @Test
    void aReaderThatRegistersAfterTheEndIsToldThatTheBacklogHasEnded() throws Throwable {
        try (RecordingEnumeratorContext<Split> context = new RecordingEnumeratorContext<>(2)) {
            SplitEnumerator<Split, Set<Split>> enumerator = started(context);
            enumerator.handleSourceEvent(0, new PendingRecordsPublishedEvent());
            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            enumerator.handleSourceEvent(1, new ReaderCaughtUpEvent(NO_SPLIT));

            context.unregisterReader(0);
            enumerator.addSplitsBack(List.of(new Split(0, 0, 10)), 0);
            addReader(enumerator, context, 0);
            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(IDLE_WITHOUT_GAUGE));

            assertThat(context.backlog).containsExactly(true, false);
            assertThat(context.sent).endsWith(COMPLETE + " to 1", "split-0 to 0", ENDED + " to 0");
        }
    }

    @Test
    void theAssignmentIsCompleteWhenTheInitialDiscoveryHasGoneQuiet() throws Throwable {
        try (RecordingEnumeratorContext<Split> context = new RecordingEnumeratorContext<>(2)) {
            SplitEnumerator<Split, Set<Split>> enumerator = wrapped(context);
            enumerator.start();
            addReader(enumerator, context, 0);
            addReader(enumerator, context, 1);

            // The discovery runs again before its one-time call has; a periodic call counts once.
            context.runPeriodicCallable(0);
            context.runPeriodicCallable(0);
            assertThat(context.sent).isEmpty();

            context.runNextOneTimeCallable();
            assertThat(context.sent)
                    .containsExactly(
                            "split-0 to 0", "split-1 to 1", COMPLETE + " to 0", COMPLETE + " to 1");
        }
    }

    @Test
    void aReaderThatRegistersLaterIsToldAfterItsSplit() throws Throwable {
        try (RecordingEnumeratorContext<Split> context = new RecordingEnumeratorContext<>(2)) {
            SplitEnumerator<Split, Set<Split>> enumerator = wrapped(context);
            enumerator.start();
            context.runPeriodicCallable(0);
            context.runNextOneTimeCallable();
            assertThat(context.sent).isEmpty();

            addReader(enumerator, context, 1);
            assertThat(context.sent).containsExactly("split-1 to 1", COMPLETE + " to 1");
        }
    }

    @Test
    void waitsForTheWorkTheSourceLeftToTheCoordinatorThread() throws Exception {
        try (RecordingEnumeratorContext<MockSourceSplit> context =
                new RecordingEnumeratorContext<>(1)) {
            SplitEnumerator<MockSourceSplit, Set<MockSourceSplit>> enumerator =
                    wrappedScripted(
                            context,
                            tracking ->
                                    tracking.runInCoordinatorThread(
                                            () -> tracking.assignSplit(new MockSourceSplit(7), 0)));
            context.register(0);
            enumerator.addReader(0);
            enumerator.start();
            assertThat(context.sent).isEmpty();

            context.runCoordinatorThreadWork();
            assertThat(context.sent).containsExactly("7 to 0", COMPLETE + " to 0");
        }
    }

    @Test
    void aSubtaskThatRegistersAgainMustCatchUpAgain() throws Throwable {
        try (RecordingEnumeratorContext<Split> context = new RecordingEnumeratorContext<>(2)) {
            SplitEnumerator<Split, Set<Split>> enumerator = started(context);
            enumerator.handleSourceEvent(0, new PendingRecordsPublishedEvent());
            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));

            context.unregisterReader(0);
            enumerator.addSplitsBack(List.of(new Split(0, 0, 10)), 0);
            addReader(enumerator, context, 0);
            enumerator.handleSourceEvent(1, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            assertThat(context.backlog).containsExactly(true);

            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            assertThat(context.backlog).containsExactly(true, false);
        }
    }

    @Test
    void aRestoredEnumeratorReportsTheBacklogAgain() throws Throwable {
        Set<Split> checkpoint;
        try (RecordingEnumeratorContext<Split> context = new RecordingEnumeratorContext<>(2)) {
            SplitEnumerator<Split, Set<Split>> enumerator = started(context);
            enumerator.handleSourceEvent(0, new PendingRecordsPublishedEvent());
            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            enumerator.handleSourceEvent(1, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            assertThat(context.backlog).containsExactly(true, false);
            checkpoint = enumerator.snapshotState(1);
        }

        try (RecordingEnumeratorContext<Split> context = new RecordingEnumeratorContext<>(2)) {
            SplitEnumerator<Split, Set<Split>> enumerator =
                    CaughtUpBacklog.wrap(source).restoreEnumerator(context, checkpoint);
            enumerator.start();
            addReader(enumerator, context, 0);
            addReader(enumerator, context, 1);
            assertThat(context.backlog).isEmpty();
            assertThat(context.sent).containsExactly(COMPLETE + " to 0", COMPLETE + " to 1");

            enumerator.handleSourceEvent(1, new PendingRecordsPublishedEvent());
            assertThat(context.backlog).containsExactly(true);

            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            enumerator.handleSourceEvent(1, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            assertThat(context.backlog).containsExactly(true, false);
        }
    }

    @Test
    void leavesTheBacklogToASourceThatReportsItsOwn() throws Exception {
        try (RecordingEnumeratorContext<MockSourceSplit> context =
                new RecordingEnumeratorContext<>(1)) {
            SplitEnumerator<MockSourceSplit, Set<MockSourceSplit>> enumerator =
                    wrappedScripted(context, tracking -> tracking.setIsProcessingBacklog(true));
            enumerator.start();
            context.register(0);
            enumerator.addReader(0);
            enumerator.handleSourceEvent(0, new PendingRecordsPublishedEvent());
            enumerator.handleSourceEvent(0, new ReaderCaughtUpEvent(PENDING_RECORDS_ZERO));
            scripted.context.setIsProcessingBacklog(false);

            assertThat(context.backlog).containsExactly(true, false);
            assertThat(context.sent).isEmpty();
        }
    }

    @Test
    void passesOtherEventsThroughBothWays() throws Exception {
        try (RecordingEnumeratorContext<MockSourceSplit> context =
                new RecordingEnumeratorContext<>(2)) {
            SplitEnumerator<MockSourceSplit, Set<MockSourceSplit>> enumerator =
                    wrappedScripted(context, tracking -> {});
            SourceEvent toEnumerator = new SourceEvent() {};
            SourceEvent toReader = new SourceEvent() {};

            enumerator.handleSourceEvent(1, toEnumerator);
            scripted.context.sendEventToSourceReader(1, toReader);

            assertThat(scripted.getHandledSourceEvent()).containsExactly(toEnumerator);
            assertThat(context.getSentSourceEvent().get(1)).containsExactly(toReader);
        }
    }

    /** The wrapped source's enumerator, started, with both readers told their split. */
    private SplitEnumerator<Split, Set<Split>> started(RecordingEnumeratorContext<Split> context)
            throws Throwable {
        SplitEnumerator<Split, Set<Split>> enumerator = wrapped(context);
        enumerator.start();
        addReader(enumerator, context, 0);
        addReader(enumerator, context, 1);
        context.runPeriodicCallable(0);
        context.runNextOneTimeCallable();
        assertThat(context.sent).contains(COMPLETE + " to 0", COMPLETE + " to 1");
        return enumerator;
    }

    private SplitEnumerator<Split, Set<Split>> wrapped(RecordingEnumeratorContext<Split> context)
            throws Exception {
        return CaughtUpBacklog.wrap(source).createEnumerator(context);
    }

    /** The wrapper of a {@link ScriptedEnumerator}, which it keeps in {@link #scripted}. */
    private SplitEnumerator<MockSourceSplit, Set<MockSourceSplit>> wrappedScripted(
            RecordingEnumeratorContext<MockSourceSplit> context,
            Consumer<SplitEnumeratorContext<MockSourceSplit>> onStart)
            throws Exception {
        return CaughtUpBacklogEnumerator.create(
                context, tracking -> scripted = new ScriptedEnumerator(tracking, onStart));
    }

    private static void addReader(
            SplitEnumerator<?, ?> enumerator, RecordingEnumeratorContext<?> context, int subtask) {
        context.register(subtask);
        enumerator.addReader(subtask);
    }

    /**
     * Flink's mock enumerator of no splits, which at its start does what the test says with the
     * context it was created with.
     */
    private static final class ScriptedEnumerator extends MockSplitEnumerator {

        final SplitEnumeratorContext<MockSourceSplit> context;
        private final Consumer<SplitEnumeratorContext<MockSourceSplit>> onStart;

        ScriptedEnumerator(
                SplitEnumeratorContext<MockSourceSplit> context,
                Consumer<SplitEnumeratorContext<MockSourceSplit>> onStart) {
            super(0, context);
            this.context = context;
            this.onStart = onStart;
        }

        @Override
        public void start() {
            onStart.accept(context);
        }
    }
}
