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
import org.apache.flink.api.common.functions.InvalidTypesException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.watermark.WatermarkDeclaration;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SupportsSplitReassignmentOnRecovery;
import org.apache.flink.api.java.typeutils.MissingTypeInfo;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.api.java.typeutils.TypeExtractor;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.lineage.LineageDataset;
import org.apache.flink.streaming.api.lineage.LineageVertex;
import org.apache.flink.streaming.api.lineage.LineageVertexProvider;
import org.apache.flink.streaming.api.lineage.SourceLineageVertex;
import org.apache.flink.streaming.api.operators.OutputTypeConfigurable;
import org.apache.flink.util.clock.SystemClock;

import java.util.List;
import java.util.Set;

import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * The wrapped source: its enumerator and readers report a backlog until the readers have caught up
 * ({@link CaughtUpBacklogEnumerator}, {@link CaughtUpBacklogReader}); its boundedness, serializers
 * and watermark declarations are the source's, so its splits, reader state and enumerator state are
 * the same bytes with and without the wrapper, and a savepoint of either restores with the other.
 *
 * <p>Flink checks a source for some interfaces by class. The wrapper is {@link
 * SupportsSplitReassignmentOnRecovery} exactly when the source is ({@link SplitReassigning}),
 * because that changes where a restored reader gets its splits. It always is {@link
 * ResultTypeQueryable}, {@link LineageVertexProvider} and {@link OutputTypeConfigurable}, and
 * answers each as Flink would have answered for the source: the source's type, or the one Flink
 * takes from the source's class; the source's lineage, or one without datasets; the output type
 * passed on, or dropped. The interfaces that only batch jobs use ({@code
 * DynamicParallelismInference}, and the enumerator's {@code SupportsBatchSnapshot} and {@code
 * SupportsHandleExecutionAttemptSourceEvent}) are left out: a bounded source is never wrapped.
 */
class CaughtUpBacklogSource<T, SplitT extends SourceSplit, EnumChkT>
        implements Source<T, SplitT, EnumChkT>,
                ResultTypeQueryable<T>,
                LineageVertexProvider,
                OutputTypeConfigurable<T> {

    private static final long serialVersionUID = 1L;

    private final Source<T, SplitT, EnumChkT> source;

    private CaughtUpBacklogSource(Source<T, SplitT, EnumChkT> source) {
        this.source = checkNotNull(source);
    }

    /** The wrapper of the source, of the class that mirrors its recovery. */
    static <T, SplitT extends SourceSplit, EnumChkT> CaughtUpBacklogSource<T, SplitT, EnumChkT> of(
            Source<T, SplitT, EnumChkT> source) {
        return source instanceof SupportsSplitReassignmentOnRecovery
                ? new SplitReassigning<>(source)
                : new CaughtUpBacklogSource<>(source);
    }

    // ---- wrapped ----

    @Override
    public SplitEnumerator<SplitT, EnumChkT> createEnumerator(
            SplitEnumeratorContext<SplitT> enumContext) throws Exception {
        return CaughtUpBacklogEnumerator.create(enumContext, source::createEnumerator);
    }

    @Override
    public SplitEnumerator<SplitT, EnumChkT> restoreEnumerator(
            SplitEnumeratorContext<SplitT> enumContext, EnumChkT checkpoint) throws Exception {
        return CaughtUpBacklogEnumerator.create(
                enumContext, context -> source.restoreEnumerator(context, checkpoint));
    }

    @Override
    public SourceReader<T, SplitT> createReader(SourceReaderContext readerContext)
            throws Exception {
        PendingRecordsReaderContext context = new PendingRecordsReaderContext(readerContext);
        return CaughtUpBacklogReader.wrap(
                source.createReader(context),
                context,
                SystemClock.getInstance(),
                CaughtUpBacklogReader.JDK_TIMER);
    }

    // ---- the source's, unchanged ----

    @Override
    public Boundedness getBoundedness() {
        return source.getBoundedness();
    }

    @Override
    public SimpleVersionedSerializer<SplitT> getSplitSerializer() {
        return source.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<EnumChkT> getEnumeratorCheckpointSerializer() {
        return source.getEnumeratorCheckpointSerializer();
    }

    @Override
    public Set<? extends WatermarkDeclaration> declareWatermarks() {
        return source.declareWatermarks();
    }

    // ---- answered for the source ----

    /**
     * The source's type. The wrapper's own type arguments say nothing about it, so for a source
     * that does not say its type this takes it from the source's class, as Flink would have.
     */
    @Override
    @SuppressWarnings("unchecked")
    public TypeInformation<T> getProducedType() {
        if (source instanceof ResultTypeQueryable<?> queryable) {
            return (TypeInformation<T>) queryable.getProducedType();
        }
        try {
            return TypeExtractor.createTypeInfo(Source.class, source.getClass(), 0, null, null);
        } catch (InvalidTypesException e) {
            return (TypeInformation<T>) new MissingTypeInfo(source.getClass().getSimpleName(), e);
        }
    }

    /**
     * The source's lineage, or a vertex without datasets: Flink's table planner takes any {@code
     * LineageVertexProvider}'s vertex as present and fails on null, and finds no dataset in an
     * empty vertex, as in a source that has no lineage; a source's vertex must be a {@link
     * SourceLineageVertex}.
     */
    @Override
    public LineageVertex getLineageVertex() {
        if (source instanceof LineageVertexProvider provider) {
            return provider.getLineageVertex();
        }
        Boundedness boundedness = source.getBoundedness();
        return new SourceLineageVertex() {
            @Override
            public Boundedness boundedness() {
                return boundedness;
            }

            @Override
            public List<LineageDataset> datasets() {
                return List.of();
            }
        };
    }

    @Override
    @SuppressWarnings("unchecked")
    public void setOutputType(TypeInformation<T> outTypeInfo, ExecutionConfig executionConfig) {
        if (source instanceof OutputTypeConfigurable<?> configurable) {
            ((OutputTypeConfigurable<T>) configurable).setOutputType(outTypeInfo, executionConfig);
        }
    }

    @Override
    public String toString() {
        return "CaughtUpBacklog(" + source + ")";
    }

    /** The wrapper of a source whose readers get their splits back from the enumerator. */
    private static final class SplitReassigning<T, SplitT extends SourceSplit, EnumChkT>
            extends CaughtUpBacklogSource<T, SplitT, EnumChkT>
            implements SupportsSplitReassignmentOnRecovery {

        private static final long serialVersionUID = 1L;

        private SplitReassigning(Source<T, SplitT, EnumChkT> source) {
            super(source);
        }
    }
}
