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

package dev.lateralsnapshot.testutils.tables;

/**
 * Lines of the Debezium JSON format ({@code 'format' = 'debezium-json'}), one change each, for the
 * build-side files that the tests drop into a monitored directory.
 */
final class Debezium {

    private Debezium() {}

    /** An insert of a row, given as a JSON object. */
    static String insert(String row) {
        return change("null", row, "c");
    }

    /** An update of a row: Flink reads it as a -U of the old row and a +U of the new one. */
    static String update(String before, String after) {
        return change(before, after, "u");
    }

    /** A delete of a row. */
    static String delete(String row) {
        return change(row, "null", "d");
    }

    private static String change(String before, String after, String op) {
        return "{\"before\":" + before + ",\"after\":" + after + ",\"op\":\"" + op + "\"}";
    }
}
