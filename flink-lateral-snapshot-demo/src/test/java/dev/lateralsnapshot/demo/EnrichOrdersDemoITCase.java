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

package dev.lateralsnapshot.demo;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the demo, the README's first command, and checks that it shows the scenario of the tutorial
 * (docs/tutorial.md): the orders held in the load phase and enriched at the flip, order 103 with
 * NULLs, the upgrade that order 104 picks up, and the metrics.
 */
class EnrichOrdersDemoITCase {

    @Test
    void showsTheTutorialsScenario() throws Exception {
        PrintStream stdout = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (PrintStream capture = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
            System.setOut(capture);
            EnrichOrdersDemo.main(new String[0]);
        } finally {
            System.setOut(stdout);
        }
        String output = printed.toString(StandardCharsets.UTF_8);
        stdout.print(output);

        List<String> lines = output.lines().map(String::strip).toList();
        assertThat(lines).anyMatch(row("101", "1", "20.00", "gold", "US"));
        assertThat(lines).anyMatch(row("102", "2", "35.50", "silver", "UK"));
        assertThat(lines).anyMatch(row("103", "3", "12.00", "NULL", "NULL"));
        assertThat(lines).anyMatch(row("104", "1", "50.00", "platinum", "US"));
        assertThat(output)
                .contains("(numProbeSideRecordsBuffered = 3)")
                .contains("(currentPhase = 1)")
                .contains("The join's metrics:")
                .contains("numUnmatchedProbeRecords")
                .contains("Both inputs have ended, and so has the job.");
    }

    /** A row of a printed table: the values in order, separated by spaces. */
    private static Predicate<String> row(String... values) {
        Pattern pattern =
                Pattern.compile(
                        String.join(
                                "\\s+",
                                Arrays.stream(values).map(Pattern::quote).toArray(String[]::new)));
        return line -> pattern.matcher(line).matches();
    }
}
