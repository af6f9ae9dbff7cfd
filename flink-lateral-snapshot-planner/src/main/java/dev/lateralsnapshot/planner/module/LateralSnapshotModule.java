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

package dev.lateralsnapshot.planner.module;

import dev.lateralsnapshot.planner.functions.LateralSnapshotOperatorTable;
import dev.lateralsnapshot.planner.functions.SnapshotProcessTableFunction;
import dev.lateralsnapshot.planner.functions.SnapshotTableFunction;
import dev.lateralsnapshot.planner.internal.EnvironmentCatalogs;

import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.module.Module;

import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The module that lets the Table API find {@code SNAPSHOT} by name, in {@code
 * env.fromCall("SNAPSHOT", ...)} and {@code call("SNAPSHOT", ...)}: it provides {@link
 * SnapshotProcessTableFunction} in every catalog and database, like Flink's built-in functions.
 *
 * <p>Why a module: the Table API resolves function names only through the environment's function
 * catalog (temporary system functions, then modules, then catalog functions); the operator table
 * that brings {@code SNAPSHOT} to SQL is not consulted. A temporary system function would hide a
 * user's function of the same name everywhere and block {@code createTemporarySystemFunction} for
 * that name; a module can step aside. So this one does: when the current catalog and database have
 * a function named {@code SNAPSHOT} (temporary or not), it provides nothing and that function
 * resolves as it did before the library was installed. SQL keeps using {@link
 * SnapshotTableFunction} either way ({@link LateralSnapshotOperatorTable} drops the bridge Flink
 * builds for this module's function).
 */
public final class LateralSnapshotModule implements Module {

    /** The name the module is loaded under. */
    public static final String NAME = "lateral_snapshot";

    /** Whether a name resolves to a function of the current catalog and database. */
    private final Predicate<String> definedByUser;

    private LateralSnapshotModule(Predicate<String> definedByUser) {
        this.definedByUser = definedByUser;
    }

    /**
     * Loads the module into an environment unless a module of that name is loaded already, in use
     * or not: a user who unloaded or disabled it keeps that choice until the next load.
     */
    public static void load(EnvironmentCatalogs catalogs) {
        if (!catalogs.hasModule(NAME)) {
            catalogs.loadModule(
                    NAME, new LateralSnapshotModule(catalogs::isFunctionOfCurrentDatabase));
        }
    }

    @Override
    public Set<String> listFunctions() {
        return Set.of(SnapshotTableFunction.NAME);
    }

    @Override
    public Optional<FunctionDefinition> getFunctionDefinition(String name) {
        if (!SnapshotTableFunction.NAME.equalsIgnoreCase(name) || definedByUser.test(name)) {
            return Optional.empty();
        }
        return Optional.of(SnapshotProcessTableFunction.INSTANCE);
    }
}
