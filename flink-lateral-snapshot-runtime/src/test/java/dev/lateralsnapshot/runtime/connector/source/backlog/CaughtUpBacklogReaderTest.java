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

import dev.lateralsnapshot.runtime.connector.source.backlog.ReaderCaughtUpEvent.Kind;

import org.apache.flink.api.connector.source.ExternallyInducedSourceReader;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.mocks.MockSourceSplit;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.util.clock.ManualClock;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static dev.lateralsnapshot.runtime.connector.source.backlog.CaughtUpBacklogReader.RECHECK_INTERVAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The reader of a wrapped source: when it says that it has caught up, how it wakes up to check
 * again, and what it leaves to the source's reader. The clock and the re-check timer are the
 * test's.
 */
class CaughtUpBacklogReaderTest {

    private final FakeReaderContext task = new FakeReaderContext();
    private final PendingRecordsReaderContext context = new PendingRecordsReaderContext(task);
    private final ScriptedReader scripted = new ScriptedReader(context);
    private final ManualClock clock = new ManualClock();
    private final List<CompletableFuture<Void>> timers = new ArrayList<>();
    private final CaughtUpBacklogReader<Integer, MockSourceSplit> reader =
            CaughtUpBacklogReader.wrap(scripted, context, clock, this::timer);

    /** Far longer than any interval of the reader. */
    private static final Duration LONG = Duration.ofMinutes(10);

    @Test
    void tellsTheEnumeratorOnceThatTheSourceSetItsGaugeBeforeItCatchesUpByIt() throws Exception {
        assignmentComplete(new MockSourceSplit(0));
        poll(InputStatus.MORE_AVAILABLE);
        assertThat(task.sentToEnumerator).isEmpty();

        scripted.pendingRecords(0);
        poll(InputStatus.MORE_AVAILABLE);
        poll(InputStatus.NOTHING_AVAILABLE);
        clock.advanceTime(RECHECK_INTERVAL);
        poll(InputStatus.NOTHING_AVAILABLE);

        assertThat(task.sentToEnumerator)
                .map(Object::toString)
                .containsExactly(
                        "PendingRecordsPublishedEvent",
                        "ReaderCaughtUpEvent(PENDING_RECORDS_ZERO)");
    }

    @Test
    void caughtUpWhenThePendingRecordsReadZeroForARecheckInterval() throws Exception {
        assignmentComplete(new MockSourceSplit(0));
        scripted.pendingRecords(3);
        poll(InputStatus.NOTHING_AVAILABLE);

        scripted.pendingRecords(0);
        poll(InputStatus.NOTHING_AVAILABLE);
        clock.advanceTime(RECHECK_INTERVAL.minusMillis(1));
        poll(InputStatus.NOTHING_AVAILABLE);
        assertThat(reports()).isEmpty();

        clock.advanceTime(Duration.ofMillis(1));
        poll(InputStatus.NOTHING_AVAILABLE);
        clock.advanceTime(RECHECK_INTERVAL);
        poll(InputStatus.NOTHING_AVAILABLE);
        assertThat(reports()).containsExactly(Kind.PENDING_RECORDS_ZERO);
    }

    @Test
    void aGaugeAboveZeroStartsTheIntervalOver() throws Exception {
        assignmentComplete(new MockSourceSplit(0));
        scripted.pendingRecords(0);
        poll(InputStatus.NOTHING_AVAILABLE);
        clock.advanceTime(RECHECK_INTERVAL.minusMillis(1));
        scripted.pendingRecords(2);
        poll(InputStatus.NOTHING_AVAILABLE);

        scripted.pendingRecords(0);
        clock.advanceTime(Duration.ofMillis(1));
        poll(InputStatus.NOTHING_AVAILABLE);
        clock.advanceTime(RECHECK_INTERVAL.minusMillis(1));
        poll(InputStatus.NOTHING_AVAILABLE);
        assertThat(reports()).isEmpty();

        clock.advanceTime(Duration.ofMillis(1));
        poll(InputStatus.NOTHING_AVAILABLE);
        assertThat(reports()).containsExactly(Kind.PENDING_RECORDS_ZERO);
    }

    @Test
    void notCaughtUpWhileItsQueueHasRecords() throws Exception {
        assignmentComplete(new MockSourceSplit(0));
        scripted.pendingRecords(0);
        for (int poll = 0; poll < 3; poll++) {
            poll(InputStatus.MORE_AVAILABLE);
            clock.advanceTime(RECHECK_INTERVAL);
        }
        assertThat(reports()).isEmpty();
    }

    @Test
    void notCaughtUpBeforeItsAssignmentIsComplete() throws Exception {
        scripted.pendingRecords(0);
        poll(InputStatus.NOTHING_AVAILABLE);
        clock.advanceTime(LONG);
        poll(InputStatus.NOTHING_AVAILABLE);
        assertThat(reports()).isEmpty();

        reader.handleSourceEvents(new AssignmentCompleteEvent());
        poll(InputStatus.NOTHING_AVAILABLE);
        assertThat(reports()).containsExactly(Kind.NO_SPLIT);
        assertThat(scripted.events).isEmpty();
    }

    @Test
    void aReaderWithoutSplitHasCaughtUpOnceItsAssignmentIsComplete() throws Exception {
        assignmentComplete();
        poll(InputStatus.NOTHING_AVAILABLE);
        assertThat(reports()).containsExactly(Kind.NO_SPLIT);
    }

    @Test
    void aReaderWithoutGaugeNeverSaysMoreThanThatItIsIdleAndKeepsWatching() throws Exception {
        idleWithoutGauge();
        for (int check = 0; check < 3; check++) {
            clock.advanceTime(LONG);
            poll(InputStatus.NOTHING_AVAILABLE);
        }
        assertThat(reports()).containsExactly(Kind.IDLE_WITHOUT_GAUGE);
        assertThat(reader.isAvailable()).isNotSameAs(scripted.available);
    }

    @Test
    void aReaderWithoutGaugeSaysSoAfterARecheckIntervalWithNothingToRead() throws Exception {
        assignmentComplete(new MockSourceSplit(0));
        poll(InputStatus.NOTHING_AVAILABLE);
        clock.advanceTime(RECHECK_INTERVAL.minusMillis(1));
        poll(InputStatus.NOTHING_AVAILABLE);
        assertThat(reports()).isEmpty();

        clock.advanceTime(Duration.ofMillis(1));
        poll(InputStatus.NOTHING_AVAILABLE);
        clock.advanceTime(RECHECK_INTERVAL);
        poll(InputStatus.NOTHING_AVAILABLE);
        assertThat(reports()).containsExactly(Kind.IDLE_WITHOUT_GAUGE);
        assertThat(reader.isAvailable()).isNotSameAs(scripted.available);
    }

    @Test
    void aReaderWithoutGaugeTakesItBackWhenItReadsAgainAndThenSaysItAgain() throws Exception {
        idleWithoutGauge();
        poll(InputStatus.MORE_AVAILABLE);
        poll(InputStatus.MORE_AVAILABLE);
        assertThat(reports()).containsExactly(Kind.IDLE_WITHOUT_GAUGE, Kind.READING_AGAIN);

        poll(InputStatus.NOTHING_AVAILABLE);
        clock.advanceTime(RECHECK_INTERVAL);
        poll(InputStatus.NOTHING_AVAILABLE);
        assertThat(reports())
                .containsExactly(
                        Kind.IDLE_WITHOUT_GAUGE, Kind.READING_AGAIN, Kind.IDLE_WITHOUT_GAUGE);
    }

    @Test
    void aReaderWithoutGaugeTakesItBackWhenItGetsNewSplits() throws Exception {
        idleWithoutGauge();
        reader.addSplits(List.of(new MockSourceSplit(1)));
        assertThat(reports()).containsExactly(Kind.IDLE_WITHOUT_GAUGE, Kind.READING_AGAIN);

        poll(InputStatus.NOTHING_AVAILABLE);
        clock.advanceTime(RECHECK_INTERVAL.minusMillis(1));
        poll(InputStatus.NOTHING_AVAILABLE);
        assertThat(reports()).hasSize(2);
    }

    @Test
    void aGaugeSetAfterAReaderSaidItHadNoneDecides() throws Exception {
        idleWithoutGauge();
        poll(InputStatus.MORE_AVAILABLE);
        scripted.pendingRecords(0);
        poll(InputStatus.NOTHING_AVAILABLE);
        clock.advanceTime(RECHECK_INTERVAL);
        poll(InputStatus.NOTHING_AVAILABLE);

        assertThat(reports())
                .containsExactly(
                        Kind.IDLE_WITHOUT_GAUGE, Kind.READING_AGAIN, Kind.PENDING_RECORDS_ZERO);
        assertThat(reader.isAvailable()).isSameAs(scripted.available);
    }

    @Test
    void aReaderWithoutGaugeStopsWatchingOnceTheBacklogHasEnded() throws Exception {
        idleWithoutGauge();
        reader.handleSourceEvents(new BacklogEndedEvent());
        poll(InputStatus.MORE_AVAILABLE);
        reader.addSplits(List.of(new MockSourceSplit(1)));
        poll(InputStatus.NOTHING_AVAILABLE);
        clock.advanceTime(LONG);
        poll(InputStatus.NOTHING_AVAILABLE);

        assertThat(reports()).containsExactly(Kind.IDLE_WITHOUT_GAUGE);
        assertThat(reader.isAvailable()).isSameAs(scripted.available);
        assertThat(scripted.events).isEmpty();
    }

    @Test
    void aReaderThatEndsHasCaughtUp() throws Exception {
        reader.addSplits(List.of(new MockSourceSplit(0)));
        scripted.pendingRecords(4);
        poll(InputStatus.END_OF_INPUT);
        assertThat(reports()).containsExactly(Kind.END_OF_INPUT);
    }

    @Test
    void isAvailableAlsoCompletesEveryRecheckIntervalUntilCaughtUp() throws Exception {
        CompletableFuture<Void> available = reader.isAvailable();
        assertThat(available).isNotDone();
        assertThat(timers).hasSize(1);

        timers.get(0).complete(null);
        assertThat(available).isDone();
        assertThat(scripted.available).isNotDone();

        assignmentComplete();
        poll(InputStatus.NOTHING_AVAILABLE);
        assertThat(reader.isAvailable()).isSameAs(scripted.available);
    }

    @Test
    void passesOtherEventsThroughBothWays() {
        SourceEvent toReader = new SourceEvent() {};
        SourceEvent toEnumerator = new SourceEvent() {};

        reader.handleSourceEvents(toReader);
        scripted.sendToEnumerator(toEnumerator);

        assertThat(scripted.events).containsExactly(toReader);
        assertThat(task.sentToEnumerator).containsExactly(toEnumerator);
    }

    @Test
    void theStateAndTheRestAreTheSourceReaders() throws Exception {
        List<MockSourceSplit> splits = List.of(new MockSourceSplit(0), new MockSourceSplit(1));
        reader.start();
        reader.addSplits(splits);
        assertThat(reader.snapshotState(1)).isSameAs(scripted.splits).isEqualTo(splits);

        reader.pauseOrResumeSplits(List.of("0"), List.of("1"));
        reader.notifyNoMoreSplits();
        reader.notifyCheckpointComplete(1);
        reader.notifyCheckpointAborted(2);
        reader.close();
        assertThat(scripted.calls)
                .containsExactly(
                        "start",
                        "pause [0] resume [1]",
                        "notifyNoMoreSplits",
                        "notifyCheckpointComplete 1",
                        "notifyCheckpointAborted 2",
                        "close");
    }

    @Test
    void aRecordItFailsToReadFailsWithItsSplitAsItStands() {
        MockSourceSplit split = new MockSourceSplit(7, 3);
        reader.addSplits(List.of(split));
        IOException failure = new IOException("Failed to deserialize consumer record due to");
        scripted.failure = failure;

        assertThatThrownBy(() -> reader.pollNext(null))
                .isInstanceOf(IOException.class)
                .hasMessage(
                        "Subtask 0 of the source failed to read a record of its split %s (the split"
                                + " as it stands after the last record the reader emitted)",
                        split)
                .hasCause(failure);
    }

    @Test
    void aRecordItFailsToReadWithSeveralSplitsFailsWithEach() {
        List<MockSourceSplit> splits = List.of(new MockSourceSplit(0), new MockSourceSplit(1));
        reader.addSplits(splits);
        IOException failure = new IOException("Failed to deserialize consumer record due to");
        scripted.failure = failure;

        assertThatThrownBy(() -> reader.pollNext(null))
                .hasMessage(
                        "Subtask 0 of the source failed to read a record of one of its splits %s"
                                + " (each as it stands after the last record the reader emitted)",
                        splits)
                .hasCause(failure);
    }

    @Test
    void isExternallyInducedExactlyWhenTheSourceReaderIs() {
        assertThat(reader).isNotInstanceOf(ExternallyInducedSourceReader.class);

        CaughtUpBacklogReader<Integer, MockSourceSplit> induced =
                CaughtUpBacklogReader.wrap(
                        new InducingReader(context), context, clock, this::timer);
        assertThat(induced).isInstanceOf(ExternallyInducedSourceReader.class);
        assertThat(((ExternallyInducedSourceReader<?, ?>) induced).shouldTriggerCheckpoint())
                .contains(42L);
    }

    private CompletableFuture<Void> timer(Duration delay) {
        assertThat(delay).isEqualTo(RECHECK_INTERVAL);
        CompletableFuture<Void> timer = new CompletableFuture<>();
        timers.add(timer);
        return timer;
    }

    private void assignmentComplete(MockSourceSplit... splits) {
        reader.addSplits(List.of(splits));
        reader.handleSourceEvents(new AssignmentCompleteEvent());
    }

    /** A reader with a split and no gauge, which has said so after a re-check interval. */
    private void idleWithoutGauge() throws Exception {
        assignmentComplete(new MockSourceSplit(0));
        poll(InputStatus.NOTHING_AVAILABLE);
        clock.advanceTime(RECHECK_INTERVAL);
        poll(InputStatus.NOTHING_AVAILABLE);
        assertThat(reports()).containsExactly(Kind.IDLE_WITHOUT_GAUGE);
    }

    private void poll(InputStatus status) throws Exception {
        scripted.status = status;
        // The scripted reader emits nothing, so it needs no output.
        assertThat(reader.pollNext(null)).isEqualTo(status);
    }

    /** How the reader said it has caught up, in the order it said so. */
    private List<Kind> reports() {
        return task.sentToEnumerator.stream()
                .filter(ReaderCaughtUpEvent.class::isInstance)
                .map(event -> ((ReaderCaughtUpEvent) event).kind())
                .toList();
    }

    /** A scripted reader that would trigger checkpoint 42. */
    private static final class InducingReader extends ScriptedReader
            implements ExternallyInducedSourceReader<Integer, MockSourceSplit> {

        InducingReader(PendingRecordsReaderContext context) {
            super(context);
        }

        @Override
        public Optional<Long> shouldTriggerCheckpoint() {
            return Optional.of(42L);
        }
    }
}
