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

import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Guards {@link RocksDbStoreColumn}, and the scan and the cursor over it, on Flink's RocksDB. */
class RocksDbStoreColumnTest {

    @Nested
    class Scan extends ColumnFamilyMapStateScanTest {
        Scan() {
            super(new EmbeddedRocksDBStateBackend(), RocksDbStoreColumn.BACKEND_CLASS);
        }
    }

    @Nested
    class Writes extends SortedColumnWritesTest {
        Writes() {
            super(new EmbeddedRocksDBStateBackend(), RocksDbStoreColumn.BACKEND_CLASS);
        }
    }

    @Nested
    class ValueWrites extends ColumnFamilyValueStateWritesTest {
        ValueWrites() {
            super(new EmbeddedRocksDBStateBackend(), RocksDbStoreColumn.BACKEND_CLASS);
        }
    }

    @Nested
    class MapWrites extends ColumnFamilyMapStateWritesTest {
        MapWrites() {
            super(new EmbeddedRocksDBStateBackend(), RocksDbStoreColumn.BACKEND_CLASS);
        }
    }

    @Nested
    class Cursor extends ColumnFamilyValueStateCursorTest {
        Cursor() {
            super(new EmbeddedRocksDBStateBackend(), RocksDbStoreColumn.BACKEND_CLASS);
        }

        @Test
        void theHeapBackendHasNoColumn() throws Exception {
            open(new HashMapStateBackend(), 128);
            host.setCurrentKey(key("a"));
            host.value(VALUE).update(value("a", 1));
            host.map().put(1L, value("a", 1));
            assertThat(ValueStateCursor.open(keyedBackend(), VALUE.getName())).isEmpty();
            assertThat(MapStateScan.open(keyedBackend(), MAP.getName())).isEmpty();
            assertThat(ValueStateWrites.open(keyedBackend(), VALUE.getName())).isEmpty();
            assertThat(MapStateWrites.open(keyedBackend(), MAP.getName())).isEmpty();
        }
    }
}
