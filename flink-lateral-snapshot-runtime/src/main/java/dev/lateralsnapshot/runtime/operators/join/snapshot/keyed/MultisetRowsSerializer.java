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

import org.apache.flink.api.common.typeutils.CompositeTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import java.io.IOException;

/**
 * Writes the {@link MultisetRows} of a key: the number of rows in place, 0 for a spilled key, then
 * the rows. On RocksDB one {@code get} thus reads every row of a key that is not spilled.
 *
 * <p>Public, with a public snapshot class, because Flink instantiates the snapshot by the class
 * name that a savepoint records.
 */
public final class MultisetRowsSerializer extends TypeSerializer<MultisetRows> {

    private static final long serialVersionUID = 1L;

    private final RowDataSerializer rowSerializer;

    public MultisetRowsSerializer(RowDataSerializer rowSerializer) {
        this.rowSerializer = rowSerializer;
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<MultisetRows> duplicate() {
        // The row serializer keeps a reused writer for rows that are not binary.
        return new MultisetRowsSerializer((RowDataSerializer) rowSerializer.duplicate());
    }

    @Override
    public MultisetRows createInstance() {
        return MultisetRows.SPILLED;
    }

    @Override
    public MultisetRows copy(MultisetRows from) {
        int size = from.size();
        if (size == 0) {
            return MultisetRows.SPILLED;
        }
        RowData[] copies = new RowData[size];
        for (int i = 0; i < size; i++) {
            copies[i] = rowSerializer.copy(from.row(i));
        }
        return MultisetRows.of(copies);
    }

    @Override
    public MultisetRows copy(MultisetRows from, MultisetRows reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(MultisetRows value, DataOutputView target) throws IOException {
        int size = value.size();
        target.writeInt(size);
        for (int i = 0; i < size; i++) {
            rowSerializer.serialize(value.row(i), target);
        }
    }

    @Override
    public MultisetRows deserialize(DataInputView source) throws IOException {
        int size = source.readInt();
        if (size == 0) {
            return MultisetRows.SPILLED;
        }
        RowData[] rows = new RowData[size];
        for (int i = 0; i < size; i++) {
            rows[i] = rowSerializer.deserialize(source);
        }
        return MultisetRows.of(rows);
    }

    @Override
    public MultisetRows deserialize(MultisetRows reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        int size = source.readInt();
        target.writeInt(size);
        for (int i = 0; i < size; i++) {
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
    public TypeSerializerSnapshot<MultisetRows> snapshotConfiguration() {
        return new MultisetRowsSerializerSnapshot(this);
    }

    /** The snapshot that a savepoint records by its class name, with the row serializer's. */
    public static final class MultisetRowsSerializerSnapshot
            extends CompositeTypeSerializerSnapshot<MultisetRows, MultisetRowsSerializer> {

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
