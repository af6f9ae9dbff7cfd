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

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.internal.TableImpl;
import org.apache.flink.table.catalog.ContextResolvedTable;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.operations.CollectModifyOperation;
import org.apache.flink.table.operations.ExternalModifyOperation;
import org.apache.flink.table.operations.ModifyOperation;
import org.apache.flink.table.operations.ModifyType;
import org.apache.flink.table.operations.QueryOperation;
import org.apache.flink.table.operations.SinkModifyOperation;
import org.apache.flink.table.operations.SourceQueryOperation;
import org.apache.flink.table.operations.StagedSinkModifyOperation;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Guards for {@link ModifyOperations}: the modify operations it copies have the properties the copy
 * carries over, no more, and the copy keeps each.
 */
class ModifyOperationsTest {

    private QueryOperation query;
    private QueryOperation otherQuery;
    private ContextResolvedTable table;

    @BeforeEach
    void createTables() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql("CREATE TABLE t (x INT) WITH ('connector' = 'datagen')");
        query = ((TableImpl) env.from("t")).getQueryOperation();
        otherQuery = ((TableImpl) env.sqlQuery("SELECT x + 1 AS x FROM t")).getQueryOperation();
        table = ((SourceQueryOperation) query).getContextResolvedTable();
    }

    @Test
    void theCopiedClassesHaveTheKnownProperties() {
        assertThat(instanceFields(SinkModifyOperation.class))
                .as("SinkModifyOperation has new properties: copy them in ModifyOperations")
                .containsExactlyInAnyOrder(
                        "contextResolvedTable",
                        "staticPartitions",
                        "child",
                        "overwrite",
                        "dynamicOptions",
                        "modifyType",
                        "targetColumns",
                        "conflictStrategy");
        assertThat(instanceFields(ExternalModifyOperation.class))
                .as("ExternalModifyOperation has new properties: copy them in ModifyOperations")
                .containsExactlyInAnyOrder(
                        "contextResolvedTable",
                        "child",
                        "changelogMode",
                        "physicalDataType",
                        "conflictStrategy");
        assertThat(instanceFields(CollectModifyOperation.class))
                .as("CollectModifyOperation has new properties: copy them in ModifyOperations")
                .containsExactlyInAnyOrder("child", "resultProvider", "consumedDataType");
    }

    @Test
    void aSinkCopyKeepsEveryProperty() {
        SinkModifyOperation sink =
                new SinkModifyOperation(
                        table,
                        query,
                        Map.of("p", "1"),
                        new int[][] {{0}},
                        true,
                        Map.of("k", "v"),
                        ModifyType.UPDATE,
                        null);

        SinkModifyOperation copy =
                (SinkModifyOperation) ModifyOperations.withQuery(sink, otherQuery).orElseThrow();

        assertThat(copy.getChild()).isSameAs(otherQuery);
        assertThat(copy.getContextResolvedTable()).isSameAs(table);
        assertThat(copy.getStaticPartitions()).isEqualTo(Map.of("p", "1"));
        assertThat(copy.getTargetColumns()).isEqualTo(new int[][] {{0}});
        assertThat(copy.isOverwrite()).isTrue();
        assertThat(copy.getDynamicOptions()).isEqualTo(Map.of("k", "v"));
        assertThat(copy.isUpdate()).isTrue();
        assertThat(copy.getConflictStrategy()).isEmpty();
    }

    @Test
    void anExternalCopyKeepsEveryProperty() {
        ExternalModifyOperation external =
                new ExternalModifyOperation(
                        table, query, ChangelogMode.all(), DataTypes.ROW(DataTypes.INT()));

        ExternalModifyOperation copy =
                (ExternalModifyOperation)
                        ModifyOperations.withQuery(external, otherQuery).orElseThrow();

        assertThat(copy.getChild()).isSameAs(otherQuery);
        assertThat(copy.getContextResolvedTable()).isSameAs(table);
        assertThat(copy.getChangelogMode()).contains(ChangelogMode.all());
        assertThat(copy.getPhysicalDataType()).isEqualTo(DataTypes.ROW(DataTypes.INT()));
    }

    @Test
    void whatTheCollectCopyIsGivenGoesBack() {
        CollectModifyOperation collect = new CollectModifyOperation(query);
        CollectModifyOperation copy =
                (CollectModifyOperation)
                        ModifyOperations.withQuery(collect, otherQuery).orElseThrow();
        copy.setConsumedDataType(DataTypes.INT());

        ModifyOperations.copyTranslationResults(copy, collect);

        assertThat(copy.getChild()).isSameAs(otherQuery);
        assertThat(collect.getConsumedDataType()).isEqualTo(DataTypes.INT());
    }

    @Test
    void otherKindsAreNotCopied() {
        ModifyOperation staged =
                new StagedSinkModifyOperation(table, query, Map.of(), null, false, Map.of(), null);

        assertThat(ModifyOperations.withQuery(staged, otherQuery)).isEmpty();
    }

    private static List<String> instanceFields(Class<?> c) {
        List<String> names = new ArrayList<>();
        for (Field field : c.getDeclaredFields()) {
            if (!Modifier.isStatic(field.getModifiers())) {
                names.add(field.getName());
            }
        }
        return names;
    }
}
