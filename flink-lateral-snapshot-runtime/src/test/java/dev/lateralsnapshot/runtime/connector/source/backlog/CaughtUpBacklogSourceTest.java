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

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.watermark.WatermarkDeclaration;
import org.apache.flink.api.common.watermark.WatermarkDeclarations;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SupportsSplitReassignmentOnRecovery;
import org.apache.flink.api.connector.source.mocks.MockSource;
import org.apache.flink.api.connector.source.mocks.MockSourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.lineage.LineageVertex;
import org.apache.flink.streaming.api.lineage.LineageVertexProvider;
import org.apache.flink.streaming.api.lineage.SourceLineageVertex;
import org.apache.flink.streaming.api.operators.OutputTypeConfigurable;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wrapped source is the source for everything a savepoint holds and for what Flink asks of a
 * source: its serializers, its reader and enumerator state, byte for byte, and its answers to the
 * interfaces Flink checks by class.
 */
class CaughtUpBacklogSourceTest {

    private final MockSource source = new MockSource(Boundedness.CONTINUOUS_UNBOUNDED, 4);
    private final Source<Integer, MockSourceSplit, Set<MockSourceSplit>> wrapped =
            CaughtUpBacklog.wrap(source);

    @Test
    void leavesABoundedSourceAloneAndWrapsOnce() {
        MockSource bounded = new MockSource(Boundedness.BOUNDED, 1);
        assertThat(CaughtUpBacklog.wrap(bounded)).isSameAs(bounded);
        assertThat(CaughtUpBacklog.isWrapped(bounded)).isFalse();

        assertThat(CaughtUpBacklog.isWrapped(wrapped)).isTrue();
        assertThat(CaughtUpBacklog.wrap(wrapped)).isSameAs(wrapped);
        assertThat(CaughtUpBacklog.isWrapped(source)).isFalse();
    }

    @Test
    void theSerializersAndBoundednessAreTheSources() {
        Source<Long, FixedRecordsSource.Split, Set<FixedRecordsSource.Split>> fixed =
                CaughtUpBacklog.wrap(new FixedRecordsSource(1));

        assertThat(fixed.getSplitSerializer()).isSameAs(FixedRecordsSource.SPLIT_SERIALIZER);
        assertThat(fixed.getEnumeratorCheckpointSerializer())
                .isSameAs(FixedRecordsSource.CHECKPOINT_SERIALIZER);
        assertThat(fixed.getBoundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
    }

    @Test
    void theEnumeratorStateIsTheSourcesByteForByte() throws Exception {
        try (RecordingEnumeratorContext<MockSourceSplit> forSource = context();
                RecordingEnumeratorContext<MockSourceSplit> forWrapper = context();
                RecordingEnumeratorContext<MockSourceSplit> restoring = context()) {
            byte[] plain = stateAfterReaderZero(source.createEnumerator(forSource), forSource);
            assertThat(stateAfterReaderZero(wrapped.createEnumerator(forWrapper), forWrapper))
                    .isEqualTo(plain);

            SimpleVersionedSerializer<Set<MockSourceSplit>> serializer =
                    source.getEnumeratorCheckpointSerializer();
            Set<MockSourceSplit> checkpoint =
                    serializer.deserialize(serializer.getVersion(), plain);
            assertThat(snapshot(wrapped.restoreEnumerator(restoring, checkpoint))).isEqualTo(plain);
        }
    }

    @Test
    void theReaderStateIsTheSourcesByteForByte() throws Exception {
        List<MockSourceSplit> splits = List.of(new MockSourceSplit(0), new MockSourceSplit(3));

        assertThat(readerState(wrapped.createReader(new FakeReaderContext()), splits))
                .containsExactlyElementsOf(
                        readerState(source.createReader(new FakeReaderContext()), splits));
    }

    @Test
    void supportsSplitReassignmentOnRecoveryExactlyWhenTheSourceDoes() {
        assertThat(wrapped).isNotInstanceOf(SupportsSplitReassignmentOnRecovery.class);
        assertThat(CaughtUpBacklog.wrap(new ReassigningSource()))
                .isInstanceOf(SupportsSplitReassignmentOnRecovery.class);
    }

    @Test
    void takesTheSameTypeAsTheSource() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();

        assertThat(env.fromSource(wrapped, WatermarkStrategy.noWatermarks(), "wrapped").getType())
                .isEqualTo(Types.INT)
                .isEqualTo(
                        env.fromSource(source, WatermarkStrategy.noWatermarks(), "plain")
                                .getType());
        assertThat(
                        env.fromSource(
                                        CaughtUpBacklog.wrap(new FixedRecordsSource(1)),
                                        WatermarkStrategy.noWatermarks(),
                                        "wrapped")
                                .getType())
                .isEqualTo(Types.LONG);
    }

    @Test
    void answersForTheSourceWhatFlinkAsksOfIt() {
        AnsweringSource answering = new AnsweringSource();
        Source<Integer, MockSourceSplit, Set<MockSourceSplit>> wrappedAnswering =
                CaughtUpBacklog.wrap(answering);

        assertThat(((LineageVertexProvider) wrappedAnswering).getLineageVertex())
                .isSameAs(answering.lineage);
        // Flink's table planner takes a provider's vertex as present and casts a source's.
        assertThat(((LineageVertexProvider) wrapped).getLineageVertex())
                .isInstanceOfSatisfying(
                        SourceLineageVertex.class,
                        vertex -> {
                            assertThat(vertex.datasets()).isEmpty();
                            assertThat(vertex.boundedness()).isEqualTo(wrapped.getBoundedness());
                        });

        @SuppressWarnings("unchecked")
        OutputTypeConfigurable<Integer> configurable =
                (OutputTypeConfigurable<Integer>) wrappedAnswering;
        configurable.setOutputType(Types.INT, new ExecutionConfig());
        assertThat(answering.outputTypes).containsExactly(Types.INT);

        assertThat(wrappedAnswering.declareWatermarks()).isSameAs(answering.watermarks);
    }

    private static RecordingEnumeratorContext<MockSourceSplit> context() {
        return new RecordingEnumeratorContext<>(2);
    }

    /** The state of the enumerator, started, once it has assigned the splits of reader 0. */
    private byte[] stateAfterReaderZero(
            SplitEnumerator<MockSourceSplit, Set<MockSourceSplit>> enumerator,
            RecordingEnumeratorContext<MockSourceSplit> context)
            throws Exception {
        enumerator.start();
        context.register(0);
        enumerator.addReader(0);
        byte[] state = snapshot(enumerator);
        assertThat(enumerator.snapshotState(1)).hasSize(2);
        return state;
    }

    private byte[] snapshot(SplitEnumerator<MockSourceSplit, Set<MockSourceSplit>> enumerator)
            throws Exception {
        return source.getEnumeratorCheckpointSerializer().serialize(enumerator.snapshotState(1));
    }

    private List<byte[]> readerState(
            SourceReader<Integer, MockSourceSplit> reader, List<MockSourceSplit> splits)
            throws Exception {
        reader.addSplits(splits);
        List<byte[]> state = new ArrayList<>();
        for (MockSourceSplit split : reader.snapshotState(1)) {
            state.add(source.getSplitSerializer().serialize(split));
        }
        return state;
    }

    /** A source whose readers get their splits back from the enumerator after a failure. */
    private static final class ReassigningSource extends MockSource
            implements SupportsSplitReassignmentOnRecovery {

        ReassigningSource() {
            super(Boundedness.CONTINUOUS_UNBOUNDED, 1);
        }
    }

    /** A source with a lineage, watermark declarations and an output type it is told. */
    private static final class AnsweringSource extends MockSource
            implements LineageVertexProvider, OutputTypeConfigurable<Integer> {

        final LineageVertex lineage = List::of;
        final Set<WatermarkDeclaration> watermarks =
                Set.of(WatermarkDeclarations.newBuilder("answering").typeLong().build());
        final List<TypeInformation<Integer>> outputTypes = new ArrayList<>();

        AnsweringSource() {
            super(Boundedness.CONTINUOUS_UNBOUNDED, 1);
        }

        @Override
        public LineageVertex getLineageVertex() {
            return lineage;
        }

        @Override
        public Set<WatermarkDeclaration> declareWatermarks() {
            return watermarks;
        }

        @Override
        public void setOutputType(TypeInformation<Integer> type, ExecutionConfig config) {
            outputTypes.add(type);
        }
    }
}
