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

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The value of a key in the multiset layout, and how it survives every way Flink moves it. */
class MultisetRowsSerializerTest {

    private static final RowType ROW_TYPE = RowType.of(VarCharType.STRING_TYPE, new IntType());

    private final RowDataSerializer rowSerializer = new RowDataSerializer(ROW_TYPE);
    private final MultisetRowsSerializer serializer = new MultisetRowsSerializer(rowSerializer);

    private RowData row(String currency, int rate) {
        return rowSerializer
                .toBinaryRow(GenericRowData.of(StringData.fromString(currency), rate))
                .copy();
    }

    private List<MultisetRows> values() {
        return List.of(
                MultisetRows.of(row("EUR", 1)),
                MultisetRows.of(new RowData[] {row("EUR", 1), row("EUR", 1), row("USD", 2)}),
                MultisetRows.SPILLED);
    }

    @Test
    void readsWhatItWrote() throws IOException {
        for (MultisetRows value : values()) {
            DataOutputSerializer out = new DataOutputSerializer(64);
            serializer.serialize(value, out);
            MultisetRows read =
                    serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));

            assertThat(read).isEqualTo(value);
            assertThat(read.isSpilled()).isEqualTo(value.isSpilled());
        }
    }

    @Test
    void aKeyWithOneRowKeepsTheBytesOfItsRow() {
        MultisetRows one = MultisetRows.of(new RowData[] {row("EUR", 1)});

        assertThat(one).isEqualTo(MultisetRows.of(row("EUR", 1)));
        assertThat(one.size()).isEqualTo(1);
        assertThat(one.isSpilled()).isFalse();
        assertThat(MultisetRows.SPILLED.size()).isZero();
        assertThat(MultisetRows.SPILLED.isSpilled()).isTrue();
        assertThat(one.with(row("USD", 2)).without(0)).isEqualTo(MultisetRows.of(row("USD", 2)));
        assertThat(one.without(0)).isNull();
    }

    @Test
    void copiesTheRowsNotTheirObjects() {
        RowData[] rows = {row("EUR", 1), row("USD", 2)};
        MultisetRows value = MultisetRows.of(rows);

        MultisetRows copy = serializer.copy(value);

        assertThat(copy).isEqualTo(value).isNotSameAs(value);
        assertThat(copy.row(0)).isNotSameAs(rows[0]);
        MultisetRows single = MultisetRows.of(row("EUR", 1));
        assertThat(serializer.copy(single)).isEqualTo(single).isNotSameAs(single);
        assertThat(serializer.copy(MultisetRows.SPILLED)).isSameAs(MultisetRows.SPILLED);
    }

    @Test
    void copiesBetweenViewsAsWritten() throws IOException {
        for (MultisetRows value : values()) {
            DataOutputSerializer written = new DataOutputSerializer(64);
            serializer.serialize(value, written);
            // Sized up front: a copy from a view does not grow the buffer.
            DataOutputSerializer copied = new DataOutputSerializer(4096);
            serializer.copy(new DataInputDeserializer(written.getCopyOfBuffer()), copied);

            assertThat(copied.getCopyOfBuffer()).isEqualTo(written.getCopyOfBuffer());
        }
    }

    @Test
    void duplicatesAreEqualButDoNotShareTheRowWriter() {
        TypeSerializer<MultisetRows> duplicate = serializer.duplicate();

        assertThat(duplicate).isEqualTo(serializer).isNotSameAs(serializer);
        assertThat(duplicate.hashCode()).isEqualTo(serializer.hashCode());
        assertThat(serializer)
                .isNotEqualTo(
                        new MultisetRowsSerializer(
                                new RowDataSerializer(RowType.of(new IntType()))));
    }

    @Test
    void itsSnapshotRestoresAnEqualSerializerThatIsCompatibleAsIs() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
        TypeSerializerSnapshot<MultisetRows> read =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(out.getCopyOfBuffer()),
                        getClass().getClassLoader());

        assertThat(read).isInstanceOf(MultisetRowsSerializer.MultisetRowsSerializerSnapshot.class);
        assertThat(read.restoreSerializer()).isEqualTo(serializer);
        assertThat(
                        serializer
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(read)
                                .isCompatibleAsIs())
                .isTrue();
    }
}
