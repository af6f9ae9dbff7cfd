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

package dev.lateralsnapshot.testutils.connectors;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;

import java.util.Set;

/**
 * The factory of a test table whose source or sink finds its object in a {@link Registry}: a
 * channel, a gate or a collection, by the id in one required option. Flink asks each factory for
 * its identifier and its options, which differ between these connectors only in their names.
 */
abstract class RegistryTableFactory implements DynamicTableFactory {

    private final String identifier;
    private final ConfigOption<String> idOption;
    private final Set<ConfigOption<?>> optionalOptions;

    RegistryTableFactory(
            String identifier, ConfigOption<String> idOption, ConfigOption<?>... optionalOptions) {
        this.identifier = identifier;
        this.idOption = idOption;
        this.optionalOptions = Set.of(optionalOptions);
    }

    /** The option that names the object of a table by its id. */
    static ConfigOption<String> idOption(String key, String description) {
        return ConfigOptions.key(key).stringType().noDefaultValue().withDescription(description);
    }

    /** The options of a table of a connector whose object has the given id. */
    static String tableOptions(String identifier, ConfigOption<String> idOption, String id) {
        return "'connector' = '" + identifier + "', '" + idOption.key() + "' = '" + id + "'";
    }

    @Override
    public String factoryIdentifier() {
        return identifier;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(idOption);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return optionalOptions;
    }

    /** The options of the table being created, once Flink has checked them against ours. */
    ReadableConfig validatedOptions(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        return helper.getOptions();
    }
}
