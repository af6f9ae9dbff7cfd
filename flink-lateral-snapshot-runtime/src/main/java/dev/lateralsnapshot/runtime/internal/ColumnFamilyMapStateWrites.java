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
import org.apache.flink.api.common.typeutils.base.MapSerializer;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

/** {@link MapStateWrites} into a map state in its {@link StoreColumn}. */
final class ColumnFamilyMapStateWrites<UK, UV> extends SortedColumnWrites
        implements MapStateWrites<UK, UV> {

    private final TypeSerializer<UK> mapKeySerializer;
    private final TypeSerializer<UV> valueSerializer;

    @SuppressWarnings("unchecked")
    ColumnFamilyMapStateWrites(StoreColumn column, String stateName) {
        super(column);
        MapSerializer<UK, UV> mapSerializer =
                (MapSerializer<UK, UV>)
                        column.stateSerializerWithoutNamespace(stateName, StateDescriptor.Type.MAP);
        this.mapKeySerializer = mapSerializer.getKeySerializer();
        this.valueSerializer = mapSerializer.getValueSerializer();
    }

    @Override
    public void put(UK mapKey, UV value) throws Exception {
        atCurrentKey();
        byte[] storeKey =
                storeKeys.buildCompositeKeyNamesSpaceUserKey(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        mapKey,
                        mapKeySerializer);
        // The flag of a null value, which the map's own reads expect in front of every value.
        values.writeBoolean(false);
        serializeValue(valueSerializer, value);
        add(storeKey);
    }
}
