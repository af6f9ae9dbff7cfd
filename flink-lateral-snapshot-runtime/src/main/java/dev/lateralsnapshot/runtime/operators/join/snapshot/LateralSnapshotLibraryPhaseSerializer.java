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

import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

import java.io.IOException;

/**
 * Writes the phase that {@link UnionPhaseState} keeps under the state name of Flink 2.4's join, as
 * an int. Its only reason to be a class of its own is its name, which a savepoint records: a job
 * without this library cannot load the class and fails to restore the savepoint, and a join that
 * keeps its phase with another serializer under that name refuses it as incompatible. Public, with
 * a public snapshot class, because Flink instantiates the snapshot by its name.
 */
public final class LateralSnapshotLibraryPhaseSerializer extends TypeSerializerSingleton<Integer> {

    private static final long serialVersionUID = 1L;

    public static final LateralSnapshotLibraryPhaseSerializer INSTANCE =
            new LateralSnapshotLibraryPhaseSerializer();

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public Integer createInstance() {
        return UnionPhaseState.LOAD_PHASE;
    }

    @Override
    public Integer copy(Integer from) {
        return from;
    }

    @Override
    public Integer copy(Integer from, Integer reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return Integer.BYTES;
    }

    @Override
    public void serialize(Integer phase, DataOutputView target) throws IOException {
        target.writeInt(phase);
    }

    @Override
    public Integer deserialize(DataInputView source) throws IOException {
        return source.readInt();
    }

    @Override
    public Integer deserialize(Integer reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        target.writeInt(source.readInt());
    }

    @Override
    public TypeSerializerSnapshot<Integer> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The snapshot that a savepoint records by its class name. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<Integer> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
