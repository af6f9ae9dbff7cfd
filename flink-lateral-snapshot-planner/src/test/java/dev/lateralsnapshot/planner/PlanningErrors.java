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

package dev.lateralsnapshot.planner;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.ValidationException;

import org.apache.commons.lang3.exception.ExceptionUtils;
import org.assertj.core.api.AbstractThrowableAssert;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Checks of the errors that reject a statement at planning, for the tests that assert their
 * messages: each message is asserted in the test of the code that raises it, and only there.
 */
public final class PlanningErrors {

    private PlanningErrors() {}

    /**
     * The statement of the release-testing plan's errors around a fragment: what stands between
     * {@code orders AS o} and its {@code ON} clause.
     */
    public static String ordersJoining(String fragment) {
        return "EXPLAIN SELECT o.order_id FROM orders AS o "
                + fragment
                + " ON o.currency = r.currency";
    }

    /** The statement fails with a {@link ValidationException} with exactly this message. */
    public static void assertRejected(TableEnvironment env, String statement, String message) {
        assertRootCause(() -> env.executeSql(statement))
                .isInstanceOf(ValidationException.class)
                .hasMessage(message);
    }

    /**
     * The root cause of the error that planning fails with, which must be a {@link
     * ValidationException} or a {@link TableException}. The message must be the root cause's: the
     * SQL Client shows a failed statement's root cause only, so a message of ours wrapped around
     * another exception would never reach the user.
     */
    public static AbstractThrowableAssert<?, ? extends Throwable> assertRootCause(
            ThrowingCallable planning) {
        Throwable error = catchThrowable(planning);
        assertThat(error)
                .as("the statement must fail")
                .isNotNull()
                .isInstanceOfAny(ValidationException.class, TableException.class);
        return assertThat(ExceptionUtils.getRootCause(error)).as("root cause");
    }
}
