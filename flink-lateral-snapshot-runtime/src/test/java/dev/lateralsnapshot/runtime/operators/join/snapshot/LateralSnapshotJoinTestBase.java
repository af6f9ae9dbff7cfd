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

import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinSpec.Distribution;

import org.apache.flink.testutils.junit.extensions.parameterized.Parameter;
import org.apache.flink.testutils.junit.extensions.parameterized.ParameterizedTestExtension;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameters;

import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Base of the harness tests of the join's behaviour: every test runs once for each distribution of
 * the build side (hashed by the join keys, or broadcast) on each state backend, because the
 * behaviour is the same. What differs between the distributions is tested in tests of their own.
 */
@ExtendWith(ParameterizedTestExtension.class)
public abstract class LateralSnapshotJoinTestBase extends JoinTestSupport {

    @Parameters(name = "{0}, {1}")
    public static Collection<Object[]> parameters() {
        List<Object[]> parameters = new ArrayList<>();
        for (Distribution distribution : Distribution.values()) {
            for (Backend backend : Backend.values()) {
                parameters.add(new Object[] {distribution, backend});
            }
        }
        return parameters;
    }

    @Parameter(0)
    public Distribution distribution;

    @Parameter(1)
    public Backend backend;

    @Override
    public Distribution distribution() {
        return distribution;
    }

    @Override
    public Backend backend() {
        return backend;
    }
}
