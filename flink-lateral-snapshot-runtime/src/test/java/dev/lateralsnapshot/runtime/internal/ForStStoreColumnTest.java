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

import org.apache.flink.state.forst.ForStStateBackend;

import org.junit.jupiter.api.Nested;

/**
 * Guards {@link ForStStoreColumn}, and the scan and the cursor over it, on Flink's ForSt backend,
 * its files on the local file system, as the join's keyed state API reaches it.
 */
class ForStStoreColumnTest {

    @Nested
    class Scan extends ColumnFamilyMapStateScanTest {
        Scan() {
            super(new ForStStateBackend(), ForStStoreColumn.BACKEND_CLASS);
        }
    }

    @Nested
    class Writes extends SortedColumnWritesTest {
        Writes() {
            super(new ForStStateBackend(), ForStStoreColumn.BACKEND_CLASS);
        }
    }

    @Nested
    class ValueWrites extends ColumnFamilyValueStateWritesTest {
        ValueWrites() {
            super(new ForStStateBackend(), ForStStoreColumn.BACKEND_CLASS);
        }
    }

    @Nested
    class MapWrites extends ColumnFamilyMapStateWritesTest {
        MapWrites() {
            super(new ForStStateBackend(), ForStStoreColumn.BACKEND_CLASS);
        }
    }

    @Nested
    class Cursor extends ColumnFamilyValueStateCursorTest {
        Cursor() {
            super(new ForStStateBackend(), ForStStoreColumn.BACKEND_CLASS);
        }
    }
}
