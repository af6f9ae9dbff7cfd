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

package dev.lateralsnapshot.runtime.operators.join.snapshot.keyed;

import dev.lateralsnapshot.runtime.operators.join.snapshot.BackendTestBase;
import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideLayout;
import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinHarness;

import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.forst.ForStStateBackend;
import org.apache.flink.state.forst.sync.ForStSyncKeyedStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the hashed join keeps its state on each backend: probe rows read the build rows through an
 * index of the same objects where the backend holds objects, and straight from the state where it
 * holds bytes, which an index would copy onto the heap.
 */
class KeyedJoinStateTest extends BackendTestBase {

    @TestTemplate
    void probeRowsReadTheBuildRowsThroughAnIndexOnTheHeapBackendOnly() throws Exception {
        for (BuildSideLayout layout : BuildSideLayout.values()) {
            try (JoinHarness harness = harness(join().layout(layout))) {
                harness.open();

                KeyedJoinState state = (KeyedJoinState) harness.operator().state();
                assertThat(state.readsBuildRowsThroughIndex())
                        .as("layout %s", layout)
                        .isEqualTo(backend == Backend.HEAP);
            }
        }
    }

    /**
     * The join tells the backends apart by the type of the keyed backend behind any wrapper; a
     * Flink upgrade that changes what the hashmap, RocksDB or ForSt backend creates fails here.
     * ForSt serves the join's synchronous keyed state from its own store, whose map entries iterate
     * in the order of their serialized keys as RocksDB's do.
     */
    @Test
    void tellsTheBackendsOfFlinkApartByTheirKeyedBackend() throws Exception {
        try (KeyedStateHost heap = new KeyedStateHost(new HashMapStateBackend(), null);
                KeyedStateHost rocksDb =
                        new KeyedStateHost(new EmbeddedRocksDBStateBackend(), null);
                KeyedStateHost forSt = new KeyedStateHost(new ForStStateBackend(), null)) {
            assertThat(StateBackendKind.of(heap.operator.getKeyedStateBackend()))
                    .isEqualTo(StateBackendKind.OBJECTS_ON_HEAP);
            assertThat(StateBackendKind.of(rocksDb.operator.getKeyedStateBackend()))
                    .isEqualTo(StateBackendKind.SERIALIZED_IN_KEY_ORDER);
            assertThat(forSt.operator.getKeyedStateBackend())
                    .isInstanceOf(ForStSyncKeyedStateBackend.class);
            assertThat(StateBackendKind.of(forSt.operator.getKeyedStateBackend()))
                    .isEqualTo(StateBackendKind.SERIALIZED_IN_KEY_ORDER);
        }
    }
}
