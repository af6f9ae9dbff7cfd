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

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.OperatorBackendSerializationProxy;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot.CommonSerializerKeys;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The meta data a snapshot records of each state: its name, kind and serializers, read as a restore
 * reads them, from full and incremental snapshots alike.
 */
final class StateMetaInfo {

    private StateMetaInfo() {}

    static TypeSerializer<?> serializer(StateMetaInfoSnapshot state, CommonSerializerKeys key) {
        return state.getTypeSerializerSnapshot(key).restoreSerializer();
    }

    /** The operator and broadcast states, by name. */
    static Map<String, StateMetaInfoSnapshot> operatorState(OperatorSubtaskState... snapshots)
            throws IOException {
        return operatorState(StateMetaInfo.class.getClassLoader(), snapshots);
    }

    /** The operator and broadcast states, read with the classes a class loader finds. */
    static Map<String, StateMetaInfoSnapshot> operatorState(
            ClassLoader userCodeClassLoader, OperatorSubtaskState... snapshots) throws IOException {
        Map<String, StateMetaInfoSnapshot> states = new HashMap<>();
        for (OperatorSubtaskState snapshot : snapshots) {
            for (OperatorStateHandle handle : snapshot.getManagedOperatorState()) {
                OperatorBackendSerializationProxy proxy =
                        new OperatorBackendSerializationProxy(userCodeClassLoader);
                try (InputStream in = handle.openInputStream()) {
                    proxy.read(new DataInputViewStreamWrapper(in));
                }
                index(proxy.getOperatorStateMetaInfoSnapshots(), states);
                index(proxy.getBroadcastStateMetaInfoSnapshots(), states);
            }
        }
        return states;
    }

    /** The keyed states and timer services, by name. */
    static Map<String, StateMetaInfoSnapshot> keyedState(OperatorSubtaskState... snapshots)
            throws IOException {
        Map<String, StateMetaInfoSnapshot> states = new HashMap<>();
        for (OperatorSubtaskState snapshot : snapshots) {
            for (KeyedStateHandle handle : snapshot.getManagedKeyedState()) {
                // Full and incremental snapshots keep the meta data in other places.
                StreamStateHandle metaData =
                        handle instanceof IncrementalKeyedStateHandle
                                ? ((IncrementalKeyedStateHandle) handle).getMetaDataStateHandle()
                                : (KeyGroupsStateHandle) handle;
                KeyedBackendSerializationProxy<?> proxy =
                        new KeyedBackendSerializationProxy<>(StateMetaInfo.class.getClassLoader());
                try (InputStream in = metaData.openInputStream()) {
                    proxy.read(new DataInputViewStreamWrapper(in));
                }
                index(proxy.getStateMetaInfoSnapshots(), states);
            }
        }
        return states;
    }

    private static void index(
            List<StateMetaInfoSnapshot> snapshots, Map<String, StateMetaInfoSnapshot> states) {
        for (StateMetaInfoSnapshot state : snapshots) {
            states.put(state.getName(), state);
        }
    }
}
