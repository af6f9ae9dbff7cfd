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

package dev.lateralsnapshot.planner.connector.source;

import dev.lateralsnapshot.runtime.connector.source.backlog.CaughtUpBacklog;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.operators.ResourceSpec;
import org.apache.flink.api.common.operators.SlotSharingGroup;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.SourceTransformation;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link BacklogReportingSources} rebuilds a connector's source transformation around the wrapped
 * source with every attribute of the original, and finds the source of a join's input.
 */
class BacklogReportingSourcesTest {

    /**
     * The attributes a transformation of Flink 2.3 can be given, each of which the rebuilt
     * transformation copies; the output type, parallelism and name are given to its constructor.
     */
    private static final Set<String> COPIED_SETTERS =
            Set.of(
                    "setName",
                    "setDescription",
                    "setParallelism",
                    "setMaxParallelism",
                    "setResources",
                    "declareManagedMemoryUseCaseAtOperatorScope",
                    "declareManagedMemoryUseCaseAtSlotScope",
                    "setUidHash",
                    "setUid",
                    "addMetricVariable",
                    "setSlotSharingGroup",
                    "setCoLocationGroupKey",
                    "setOutputType",
                    "setBufferTimeout",
                    "setAttribute",
                    "setChainingStrategy",
                    "setSupportsConcurrentExecutionAttempts",
                    "setCoordinatorListeningID",
                    "setLineageVertex",
                    // Throws for a source: only keyed one-input and two-input operators have it.
                    "enableAsyncState");

    /** How the names of the methods that give a transformation an attribute begin. */
    private static final Pattern MUTATOR = Pattern.compile("set|declare|add|enable");

    @Test
    void aSourceTransformationHasNoAttributeThatIsNotCopied() {
        Set<String> setters = new TreeSet<>();
        for (Class<?> type = SourceTransformation.class;
                type != Object.class;
                type = type.getSuperclass()) {
            for (Method method : type.getDeclaredMethods()) {
                if (Modifier.isPublic(method.getModifiers())
                        && !Modifier.isStatic(method.getModifiers())
                        && MUTATOR.matcher(method.getName()).lookingAt()) {
                    setters.add(method.getName());
                }
            }
        }
        assertThat(setters)
                .as(
                        "a Flink upgrade changed what a SourceTransformation can be given;"
                                + " BacklogReportingSources#copyAttributes must copy the new"
                                + " attributes")
                .isEqualTo(new TreeSet<>(COPIED_SETTERS));
    }

    @Test
    void theRebuiltTransformationHasEveryAttributeOfTheOriginal() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        DataStreamSource<Long> stream =
                env.fromSource(new UnboundedSource(), WatermarkStrategy.noWatermarks(), "numbers");
        stream.setParallelism(3).setMaxParallelism(24).uid("numbers-uid");
        stream.setUidHash("0123456789abcdef0123456789abcdef");
        stream.setDescription("the numbers");
        stream.slotSharingGroup(SlotSharingGroup.newBuilder("sources").build());
        stream.disableChaining();
        SourceTransformation<Long, ?, ?> original =
                (SourceTransformation<Long, ?, ?>) stream.getTransformation();
        original.setResources(
                ResourceSpec.newBuilder(1.0, 64).build(),
                ResourceSpec.newBuilder(2.0, 128).build());
        original.declareManagedMemoryUseCaseAtOperatorScope(ManagedMemoryUseCase.OPERATOR, 3);
        original.declareManagedMemoryUseCaseAtSlotScope(ManagedMemoryUseCase.STATE_BACKEND);
        original.addMetricVariable("table", "numbers");
        original.setCoLocationGroupKey("together");
        original.setBufferTimeout(7);
        original.setSupportsConcurrentExecutionAttempts(false);
        original.setCoordinatorListeningID("listener");

        DataStream<Long> wrapped = BacklogReportingSources.wrap(stream, env);

        SourceTransformation<Long, ?, ?> rebuilt =
                (SourceTransformation<Long, ?, ?>) wrapped.getTransformation();
        assertThat(CaughtUpBacklog.isWrapped(rebuilt.getSource())).isTrue();
        assertThat(rebuilt.getId()).isGreaterThan(original.getId());
        assertThat(attributes(rebuilt)).isEqualTo(attributes(original));
    }

    @Test
    void aStreamThatIsNotTheBareOutputOfASourceIsLeftAsItIs() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        DataStream<Long> mapped =
                env.fromSource(new UnboundedSource(), WatermarkStrategy.noWatermarks(), "numbers")
                        .map(number -> number + 1);

        assertThat(BacklogReportingSources.wrap(mapped, env)).isSameAs(mapped);
    }

    @Test
    void theSourceOfAnInputIsFoundThroughOneInputTransformations() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        DataStream<Long> wrapped =
                BacklogReportingSources.wrap(
                        env.fromSource(
                                new UnboundedSource(), WatermarkStrategy.noWatermarks(), "numbers"),
                        env);
        DataStream<Long> plain =
                env.fromSource(new UnboundedSource(), WatermarkStrategy.noWatermarks(), "plain");

        assertThat(
                        BacklogReportingSources.reportsBacklog(
                                wrapped.map(n -> n + 1)
                                        .rebalance()
                                        .filter(n -> n > 0)
                                        .getTransformation()))
                .isTrue();
        assertThat(BacklogReportingSources.reportsBacklog(plain.map(n -> n).getTransformation()))
                .isFalse();
        assertThat(
                        BacklogReportingSources.reportsBacklog(
                                wrapped.union(plain).map(n -> n).getTransformation()))
                .as("a union has sources of both kinds")
                .isFalse();
    }

    private static Map<String, Object> attributes(SourceTransformation<?, ?, ?> transformation) {
        return Map.ofEntries(
                Map.entry("name", transformation.getName()),
                Map.entry("description", transformation.getDescription()),
                Map.entry("uid", transformation.getUid()),
                Map.entry("uidHash", transformation.getUserProvidedNodeHash()),
                Map.entry("outputType", transformation.getOutputType()),
                Map.entry("parallelism", transformation.getParallelism()),
                Map.entry("parallelismConfigured", transformation.isParallelismConfigured()),
                Map.entry("maxParallelism", transformation.getMaxParallelism()),
                Map.entry("minResources", transformation.getMinResources()),
                Map.entry("preferredResources", transformation.getPreferredResources()),
                Map.entry(
                        "operatorMemory",
                        transformation.getManagedMemoryOperatorScopeUseCaseWeights()),
                Map.entry("slotMemory", transformation.getManagedMemorySlotScopeUseCases()),
                Map.entry("metricVariables", transformation.getAdditionalMetricVariables()),
                Map.entry("slotSharingGroup", transformation.getSlotSharingGroup()),
                Map.entry("coLocationGroupKey", transformation.getCoLocationGroupKey()),
                Map.entry("bufferTimeout", transformation.getBufferTimeout()),
                Map.entry("chainingStrategy", transformation.getChainingStrategy()),
                Map.entry(
                        "concurrentAttempts",
                        transformation.isSupportsConcurrentExecutionAttempts()),
                Map.entry("coordinatorListeningID", transformation.getCoordinatorListeningID()),
                Map.entry("watermarkStrategy", transformation.getWatermarkStrategy()),
                Map.entry("boundedness", transformation.getBoundedness()));
    }

    /** An unbounded source that is never run: the tests only build transformations of it. */
    private static final class UnboundedSource implements Source<Long, SourceSplit, Void> {

        @Override
        public Boundedness getBoundedness() {
            return Boundedness.CONTINUOUS_UNBOUNDED;
        }

        @Override
        public SourceReader<Long, SourceSplit> createReader(SourceReaderContext context) {
            throw new UnsupportedOperationException();
        }

        @Override
        public SplitEnumerator<SourceSplit, Void> createEnumerator(
                SplitEnumeratorContext<SourceSplit> context) {
            throw new UnsupportedOperationException();
        }

        @Override
        public SplitEnumerator<SourceSplit, Void> restoreEnumerator(
                SplitEnumeratorContext<SourceSplit> context, Void checkpoint) {
            throw new UnsupportedOperationException();
        }

        @Override
        public SimpleVersionedSerializer<SourceSplit> getSplitSerializer() {
            throw new UnsupportedOperationException();
        }

        @Override
        public SimpleVersionedSerializer<Void> getEnumeratorCheckpointSerializer() {
            throw new UnsupportedOperationException();
        }
    }
}
