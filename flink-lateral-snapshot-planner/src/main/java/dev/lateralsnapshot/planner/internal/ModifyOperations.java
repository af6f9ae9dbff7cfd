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

package dev.lateralsnapshot.planner.internal;

import org.apache.flink.table.operations.CollectModifyOperation;
import org.apache.flink.table.operations.ExternalModifyOperation;
import org.apache.flink.table.operations.ModifyOperation;
import org.apache.flink.table.operations.ModifyType;
import org.apache.flink.table.operations.QueryOperation;
import org.apache.flink.table.operations.SinkModifyOperation;

import java.util.Optional;

/**
 * The same modify operation with another query: the Table API's sinks ({@code executeInsert},
 * {@code insertInto}, statement sets), its {@code execute()} and the conversions to a {@code
 * DataStream}. Modify operations are immutable, so a copy is built with every property of the
 * original; the guard test checks that these classes have no property this copy would miss.
 */
public final class ModifyOperations {

    private ModifyOperations() {}

    /**
     * A copy of the operation that writes the rows of {@code query} instead, or empty for a kind of
     * operation this class cannot copy.
     */
    public static Optional<ModifyOperation> withQuery(
            ModifyOperation operation, QueryOperation query) {
        if (operation.getClass() == SinkModifyOperation.class) {
            SinkModifyOperation sink = (SinkModifyOperation) operation;
            return Optional.of(
                    new SinkModifyOperation(
                            sink.getContextResolvedTable(),
                            query,
                            sink.getStaticPartitions(),
                            sink.getTargetColumns(),
                            sink.isOverwrite(),
                            sink.getDynamicOptions(),
                            modifyType(sink),
                            sink.getConflictStrategy().orElse(null)));
        }
        if (operation.getClass() == CollectModifyOperation.class) {
            return Optional.of(new CollectModifyOperation(query));
        }
        if (operation.getClass() == ExternalModifyOperation.class) {
            ExternalModifyOperation external = (ExternalModifyOperation) operation;
            return Optional.of(
                    new ExternalModifyOperation(
                            external.getContextResolvedTable(),
                            query,
                            external.getChangelogMode().orElse(null),
                            external.getPhysicalDataType(),
                            external.getConflictStrategy().orElse(null)));
        }
        return Optional.empty();
    }

    /**
     * Hands what the planner filled in on a copy back to the original: {@code execute()} reads the
     * result provider and the consumed type from the operation it created, after translation.
     */
    public static void copyTranslationResults(ModifyOperation copy, ModifyOperation original) {
        if (original instanceof CollectModifyOperation) {
            CollectModifyOperation from = (CollectModifyOperation) copy;
            CollectModifyOperation to = (CollectModifyOperation) original;
            to.setSelectResultProvider(from.getSelectResultProvider());
            to.setConsumedDataType(from.getConsumedDataType());
        }
    }

    private static ModifyType modifyType(SinkModifyOperation sink) {
        if (sink.isUpdate()) {
            return ModifyType.UPDATE;
        }
        return sink.isDelete() ? ModifyType.DELETE : ModifyType.INSERT;
    }
}
