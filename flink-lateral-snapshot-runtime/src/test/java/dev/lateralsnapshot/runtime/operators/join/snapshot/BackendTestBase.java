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

import java.util.Arrays;
import java.util.Collection;

/**
 * Base of the harness tests of what differs between the distributions of the build side, or of both
 * side by side: every test runs on each state backend, and its specs say which distribution they
 * run ({@link JoinSpec#distribution}); the hashed one unless they say so.
 */
@ExtendWith(ParameterizedTestExtension.class)
public abstract class BackendTestBase extends JoinTestSupport {

    @Parameters(name = "backend = {0}")
    public static Collection<Backend> backends() {
        return Arrays.asList(Backend.values());
    }

    @Parameter public Backend backend;

    @Override
    public Distribution distribution() {
        return Distribution.HASH;
    }

    @Override
    public Backend backend() {
        return backend;
    }
}
