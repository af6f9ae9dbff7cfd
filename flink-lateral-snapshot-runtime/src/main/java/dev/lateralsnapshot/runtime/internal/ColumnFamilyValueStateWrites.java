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

import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

/** {@link ValueStateWrites} into a value state in its {@link StoreColumn}. */
final class ColumnFamilyValueStateWrites<V> extends SortedColumnWrites
        implements ValueStateWrites<V> {

    private final TypeSerializer<V> valueSerializer;

    @SuppressWarnings("unchecked")
    ColumnFamilyValueStateWrites(StoreColumn column, String stateName) {
        super(column);
        this.valueSerializer =
                (TypeSerializer<V>)
                        column.stateSerializerWithoutNamespace(
                                stateName, StateDescriptor.Type.VALUE);
    }

    @Override
    public void put(V value) throws Exception {
        atCurrentKey();
        byte[] storeKey =
                storeKeys.buildCompositeKeyNamespace(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE);
        serializeValue(valueSerializer, value);
        add(storeKey);
    }
}
