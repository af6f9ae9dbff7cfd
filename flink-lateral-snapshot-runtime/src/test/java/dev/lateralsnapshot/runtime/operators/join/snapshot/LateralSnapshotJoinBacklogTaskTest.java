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

package dev.lateralsnapshot.runtime.operators.join.snapshot;

import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinSpec.Distribution;

import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.StreamTaskMailboxTestHarness;
import org.apache.flink.streaming.runtime.tasks.StreamTaskMailboxTestHarnessBuilder;
import org.apache.flink.streaming.runtime.tasks.TwoInputStreamTask;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.lateralsnapshot.runtime.operators.join.snapshot.JoinTestSupport.backlog;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.JoinTestSupport.formatRow;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.JoinTestSupport.insert;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.JoinTestSupport.join;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.JoinTestSupport.joined;
import static dev.lateralsnapshot.runtime.operators.join.snapshot.JoinTestSupport.probe;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The end of the build input's backlog as a task sees it: Flink combines the attributes of every
 * upstream build subtask, one channel each, into no backlog only when every one of them has
 * reported none. A build subtask that ends its backlog later keeps the join loading until it does.
 * Run in a real two-input task, with the channels and the combination of Flink's network input, for
 * both distributions of the build side.
 */
class LateralSnapshotJoinBacklogTaskTest {

    private static final int PROBE = 0;
    private static final int BUILD = 1;

    @Test
    void aBuildSubtaskThatEndsItsBacklogLaterKeepsTheLoadPhaseUntilItDoes() throws Exception {
        for (Distribution distribution : Distribution.values()) {
            JoinSpec spec = join().loadCompletedOnCaughtUp();
            try (StreamTaskMailboxTestHarness<RowData> task = task(spec, distribution)) {
                task.processElement(backlog(true), BUILD, 0);
                task.processElement(backlog(true), BUILD, 1);
                task.processElement(insert("A", 1, 10), BUILD, 0);
                task.processElement(insert("B", 2, 10), BUILD, 1);
                task.processElement(probe("o1", "A"), PROBE, 0);
                task.processElement(probe("o2", "B"), PROBE, 0);

                task.processElement(backlog(false), BUILD, 0);
                task.processAll();
                assertThat(joinedRows(task, spec)).as("%s", distribution).isEmpty();

                task.processElement(backlog(false), BUILD, 1);
                task.processAll();
                assertThat(joinedRows(task, spec))
                        .as("%s", distribution)
                        .containsExactlyInAnyOrder(
                                joined("o1", "A", 1, 10), joined("o2", "B", 2, 10));
            }
        }
    }

    private static StreamTaskMailboxTestHarness<RowData> task(
            JoinSpec spec, Distribution distribution) throws Exception {
        InternalTypeInfo<RowData> outputType = InternalTypeInfo.of(spec.outputType());
        StreamTaskMailboxTestHarnessBuilder<RowData> builder =
                new StreamTaskMailboxTestHarnessBuilder<>(TwoInputStreamTask::new, outputType);
        if (distribution == Distribution.HASH) {
            builder.addInput(InternalTypeInfo.of(spec.probeType), 1, spec.probeKeySelector())
                    .addInput(InternalTypeInfo.of(spec.buildType), 2, spec.buildKeySelector())
                    .setKeyType(spec.probeKeySelector().getProducedType());
        } else {
            builder.addInput(InternalTypeInfo.of(spec.probeType), 1)
                    .addInput(InternalTypeInfo.of(spec.buildType), 2);
        }
        return builder.setupOutputForSingletonOperatorChain(
                        new LateralSnapshotJoinOperator(spec.parameters(distribution)))
                .build();
    }

    /** The joined rows the task emitted since the last call. */
    @SuppressWarnings("unchecked")
    private static List<String> joinedRows(
            StreamTaskMailboxTestHarness<RowData> task, JoinSpec spec) {
        List<String> rows = new ArrayList<>();
        Object element;
        while ((element = task.getOutput().poll()) != null) {
            if (element instanceof StreamRecord) {
                rows.add(
                        formatRow(((StreamRecord<RowData>) element).getValue(), spec.outputType()));
            }
        }
        return rows;
    }
}
