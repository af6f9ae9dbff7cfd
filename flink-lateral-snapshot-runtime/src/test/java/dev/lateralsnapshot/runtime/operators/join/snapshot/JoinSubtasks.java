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

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The subtasks of one parallel join, restored the way Flink redistributes key groups and operator
 * state. Probe rows go to the subtask the hash of their key picks, as the hash exchange sends them
 * (to the broadcast join any subtask is right, and this one as good as another); build changes go
 * to the subtask of their key when the join hashes them, to every subtask when it broadcasts them;
 * watermarks go to every subtask.
 */
public final class JoinSubtasks implements AutoCloseable {

    /** Opens the harness of a subtask. */
    public interface HarnessFactory {
        JoinHarness create(int subtask) throws Exception;
    }

    private final JoinSpec spec;
    private final boolean broadcast;
    private final List<JoinHarness> harnesses = new ArrayList<>();

    /** Opens the subtasks, restored from snapshots of any parallelism when given. */
    public JoinSubtasks(
            JoinSpec spec,
            Distribution distribution,
            int parallelism,
            @Nullable OperatorSubtaskState[] snapshots,
            HarnessFactory factory)
            throws Exception {
        this.spec = spec;
        this.broadcast = distribution == Distribution.BROADCAST;
        OperatorSubtaskState merged =
                snapshots == null
                        ? null
                        : AbstractStreamOperatorTestHarness.repackageState(snapshots);
        for (int i = 0; i < parallelism; i++) {
            JoinHarness harness = factory.create(i);
            harnesses.add(harness);
            if (merged != null) {
                harness.initializeState(
                        AbstractStreamOperatorTestHarness.repartitionOperatorState(
                                merged,
                                JoinHarness.MAX_PARALLELISM,
                                snapshots.length,
                                parallelism,
                                i));
            }
            harness.open();
        }
    }

    /** The subtask that the hash exchange sends rows of this key to, at a parallelism. */
    public static int subtaskOf(RowDataKeySelector selector, RowData row, int parallelism) {
        try {
            return KeyGroupRangeAssignment.assignKeyToParallelOperator(
                    selector.getKey(row), JoinHarness.MAX_PARALLELISM, parallelism);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public JoinHarness get(int subtask) {
        return harnesses.get(subtask);
    }

    public List<Object> gauges(String name) {
        return harnesses.stream().map(h -> h.gauge(name)).collect(Collectors.toList());
    }

    public void probe(StreamRecord<RowData> record) throws Exception {
        harnesses
                .get(subtaskOf(spec.probeKeySelector(), record.getValue(), harnesses.size()))
                .processElement1(record);
    }

    public void build(StreamRecord<RowData> record) throws Exception {
        if (broadcast) {
            for (JoinHarness harness : harnesses) {
                harness.processElement2(copyOf(record));
            }
        } else {
            harnesses
                    .get(subtaskOf(spec.buildKeySelector(), record.getValue(), harnesses.size()))
                    .processElement2(record);
        }
    }

    /** Every subtask gets a row of its own: the join changes the kind of a row it applies. */
    private static StreamRecord<RowData> copyOf(StreamRecord<RowData> record) {
        GenericRowData row = (GenericRowData) record.getValue();
        Object[] fields = new Object[row.getArity()];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = row.getField(i);
        }
        return new StreamRecord<>(GenericRowData.ofKind(row.getRowKind(), fields));
    }

    public void probeWatermark(long time) throws Exception {
        for (JoinHarness harness : harnesses) {
            harness.processWatermark1(new Watermark(time));
        }
    }

    public void buildWatermark(long time) throws Exception {
        for (JoinHarness harness : harnesses) {
            harness.processWatermark2(new Watermark(time));
        }
    }

    public List<String> takeOutput() {
        return harnesses.stream()
                .flatMap(h -> h.takeOutput().stream())
                .collect(Collectors.toList());
    }

    public OperatorSubtaskState[] snapshot() throws Exception {
        OperatorSubtaskState[] snapshots = new OperatorSubtaskState[harnesses.size()];
        for (int i = 0; i < snapshots.length; i++) {
            snapshots[i] = harnesses.get(i).snapshot(1L, 1L);
        }
        return snapshots;
    }

    @Override
    public void close() throws Exception {
        Exception failure = null;
        for (JoinHarness harness : harnesses) {
            try {
                harness.close();
            } catch (Exception e) {
                failure = e;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
