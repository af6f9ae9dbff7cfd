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

import org.apache.flink.api.common.typeutils.CompositeTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import java.io.IOException;

/**
 * Writes the value that {@link MultisetBuildSideState} keeps per key: the key's only row, as a
 * {@link RowData}; several rows, as a {@code RowData[]}; or {@link #SPILLED}, an empty array, when
 * the rows are in the spilled map. A key with one row, the common case, is thus held by the heap
 * backend as its row itself, with no list between the state and the row: a probe row reads one
 * object fewer than through a list state, and on RocksDB one {@code get} reads any inline key.
 *
 * <p>Written as the number of rows, 0 for spilled, then the rows. Public, with a public snapshot
 * class, because Flink instantiates the snapshot by the class name that a savepoint records.
 */
public final class MultisetRowsSerializer extends TypeSerializer<Object> {

    private static final long serialVersionUID = 1L;

    /** The value of a spilled key. Empty, so it cannot change; compared by its length. */
    static final RowData[] SPILLED = new RowData[0];

    private final RowDataSerializer rowSerializer;

    public MultisetRowsSerializer(RowDataSerializer rowSerializer) {
        this.rowSerializer = rowSerializer;
    }

    static boolean isSpilled(Object value) {
        return value instanceof RowData[] && ((RowData[]) value).length == 0;
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<Object> duplicate() {
        // The row serializer keeps a reused writer for rows that are not binary.
        return new MultisetRowsSerializer((RowDataSerializer) rowSerializer.duplicate());
    }

    @Override
    public Object createInstance() {
        return SPILLED;
    }

    @Override
    public Object copy(Object from) {
        if (from instanceof RowData) {
            return rowSerializer.copy((RowData) from);
        }
        RowData[] rows = (RowData[]) from;
        if (rows.length == 0) {
            return SPILLED;
        }
        RowData[] copies = new RowData[rows.length];
        for (int i = 0; i < rows.length; i++) {
            copies[i] = rowSerializer.copy(rows[i]);
        }
        return copies;
    }

    @Override
    public Object copy(Object from, Object reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(Object value, DataOutputView target) throws IOException {
        if (value instanceof RowData) {
            target.writeInt(1);
            rowSerializer.serialize((RowData) value, target);
            return;
        }
        RowData[] rows = (RowData[]) value;
        target.writeInt(rows.length);
        for (RowData row : rows) {
            rowSerializer.serialize(row, target);
        }
    }

    @Override
    public Object deserialize(DataInputView source) throws IOException {
        int count = source.readInt();
        if (count == 0) {
            return SPILLED;
        }
        if (count == 1) {
            return rowSerializer.deserialize(source);
        }
        RowData[] rows = new RowData[count];
        for (int i = 0; i < count; i++) {
            rows[i] = rowSerializer.deserialize(source);
        }
        return rows;
    }

    @Override
    public Object deserialize(Object reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        int count = source.readInt();
        target.writeInt(count);
        for (int i = 0; i < count; i++) {
            rowSerializer.copy(source, target);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof MultisetRowsSerializer
                && rowSerializer.equals(((MultisetRowsSerializer) other).rowSerializer);
    }

    @Override
    public int hashCode() {
        return rowSerializer.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<Object> snapshotConfiguration() {
        return new MultisetRowsSerializerSnapshot(this);
    }

    /** The snapshot that a savepoint records by its class name, with the row serializer's. */
    public static final class MultisetRowsSerializerSnapshot
            extends CompositeTypeSerializerSnapshot<Object, MultisetRowsSerializer> {

        private static final int VERSION = 1;

        /** For Flink, which instantiates the snapshot to read it. */
        public MultisetRowsSerializerSnapshot() {}

        MultisetRowsSerializerSnapshot(MultisetRowsSerializer serializer) {
            super(serializer);
        }

        @Override
        protected int getCurrentOuterSnapshotVersion() {
            return VERSION;
        }

        @Override
        protected TypeSerializer<?>[] getNestedSerializers(MultisetRowsSerializer serializer) {
            return new TypeSerializer<?>[] {serializer.rowSerializer};
        }

        @Override
        protected MultisetRowsSerializer createOuterSerializerWithNestedSerializers(
                TypeSerializer<?>[] nestedSerializers) {
            return new MultisetRowsSerializer((RowDataSerializer) nestedSerializers[0]);
        }
    }
}
