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

import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.SourceTransformation;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Makes the FLIP-27 source of a scan report a backlog until its readers have caught up ({@link
 * CaughtUpBacklog}), and finds out whether the input of a join has such a source.
 *
 * <p>A connector that builds its own {@code DataStream} (Kafka and upsert-kafka do) hands the
 * planner a finished {@link SourceTransformation}, whose source cannot be replaced. It is rebuilt
 * around the wrapped source with every attribute of the original: name, uid, uid hash, parallelism,
 * resources and the rest, so that the job graph, the operator's id and its state are the same as
 * without the wrapper. {@code BacklogReportingSourcesTest} fails when a Flink upgrade gives a
 * transformation an attribute that is not copied.
 */
public final class BacklogReportingSources {

    private BacklogReportingSources() {}

    /**
     * The stream with its source wrapped, when it is the bare output of a FLIP-27 source; else the
     * stream as it is, whose source then reports no backlog of ours.
     */
    public static <T> DataStream<T> wrap(DataStream<T> stream, StreamExecutionEnvironment env) {
        Transformation<T> transformation = stream.getTransformation();
        if (transformation.getClass() != SourceTransformation.class) {
            return stream;
        }
        return new DataStream<>(env, wrap((SourceTransformation<T, ?, ?>) transformation));
    }

    private static <T, S extends SourceSplit, E> SourceTransformation<T, S, E> wrap(
            SourceTransformation<T, S, E> original) {
        Source<T, S, E> source = original.getSource();
        if (CaughtUpBacklog.isWrapped(source)) {
            return original;
        }
        SourceTransformation<T, S, E> wrapped =
                new SourceTransformation<>(
                        original.getName(),
                        CaughtUpBacklog.wrap(source),
                        original.getWatermarkStrategy(),
                        original.getOutputType(),
                        original.getParallelism(),
                        original.isParallelismConfigured());
        copyAttributes(original, wrapped);
        return wrapped;
    }

    private static <T> void copyAttributes(
            SourceTransformation<T, ?, ?> from, SourceTransformation<T, ?, ?> to) {
        if (from.getDescription() != null) {
            to.setDescription(from.getDescription());
        }
        to.setUid(from.getUid());
        if (from.getUserProvidedNodeHash() != null) {
            to.setUidHash(from.getUserProvidedNodeHash());
        }
        if (from.getMaxParallelism() > 0) {
            to.setMaxParallelism(from.getMaxParallelism());
        }
        to.setResources(from.getMinResources(), from.getPreferredResources());
        from.getManagedMemoryOperatorScopeUseCaseWeights()
                .forEach(to::declareManagedMemoryUseCaseAtOperatorScope);
        for (ManagedMemoryUseCase useCase : from.getManagedMemorySlotScopeUseCases()) {
            to.declareManagedMemoryUseCaseAtSlotScope(useCase);
        }
        Map<String, String> metricVariables = from.getAdditionalMetricVariables();
        if (metricVariables != null) {
            metricVariables.forEach(to::addMetricVariable);
        }
        from.getSlotSharingGroup().ifPresent(to::setSlotSharingGroup);
        to.setCoLocationGroupKey(from.getCoLocationGroupKey());
        to.setBufferTimeout(from.getBufferTimeout());
        to.setAttribute(from.getAttribute());
        to.setChainingStrategy(from.getChainingStrategy());
        to.setSupportsConcurrentExecutionAttempts(from.isSupportsConcurrentExecutionAttempts());
        to.setCoordinatorListeningID(from.getCoordinatorListeningID());
        if (from.getLineageVertex() != null) {
            to.setLineageVertex(from.getLineageVertex());
        }
    }

    /**
     * Whether the source of the input, through operators and exchanges of one input each, reports a
     * backlog of ours.
     */
    public static boolean reportsBacklog(Transformation<?> input) {
        return source(input).map(CaughtUpBacklog::isWrapped).orElse(false);
    }

    private static Optional<Source<?, ?, ?>> source(Transformation<?> input) {
        Transformation<?> transformation = input;
        while (!(transformation instanceof SourceTransformation)) {
            List<Transformation<?>> inputs = transformation.getInputs();
            if (inputs.size() != 1) {
                return Optional.empty();
            }
            transformation = inputs.get(0);
        }
        return Optional.of(((SourceTransformation<?, ?, ?>) transformation).getSource());
    }
}
