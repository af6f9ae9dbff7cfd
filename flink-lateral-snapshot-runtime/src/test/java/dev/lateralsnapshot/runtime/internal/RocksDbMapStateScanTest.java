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

package dev.lateralsnapshot.runtime.internal;

import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.table.data.RowData;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Guards {@link RocksDbMapStateScan} against Flink's RocksDB backend. */
class RocksDbMapStateScanTest extends ColumnFamilyMapStateScanTest {

    @Override
    StateBackend backend() {
        return new EmbeddedRocksDBStateBackend();
    }

    @Override
    String backendClass() {
        return RocksDbMapStateScan.BACKEND_CLASS;
    }

    @Test
    void theHeapBackendHasNoScan() throws Exception {
        open(new HashMapStateBackend(), 128);
        put("a", 1);
        @SuppressWarnings("unchecked")
        KeyedStateBackend<RowData> backend = (KeyedStateBackend<RowData>) host.backend();
        assertThat(MapStateScan.open(backend, MAP.getName())).isEmpty();
    }
}
