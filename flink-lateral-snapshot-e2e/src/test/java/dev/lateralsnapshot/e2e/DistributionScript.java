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

package dev.lateralsnapshot.e2e;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One of the scripts in the {@code bin/} directory of the distribution that this module assembles
 * ({@code target/flink-2.3.0}), run as a user runs it: in a working directory, with the environment
 * variables the script documents, its output kept in a file of that directory.
 */
final class DistributionScript {

    private DistributionScript() {}

    /** The distribution, as the build passes it to the tests. */
    static Path distribution() {
        return Path.of(System.getProperty("flink.dist"));
    }

    /**
     * Runs {@code bin/<command[0]>} with the other elements as its arguments and the given standard
     * input (none if null), and returns what it printed; fails unless it exits with 0 within the
     * timeout.
     */
    static String run(
            Path workingDirectory,
            Map<String, String> environment,
            Duration timeout,
            String input,
            String... command) {
        List<String> commandLine = new ArrayList<>(List.of(command));
        commandLine.set(0, distribution().resolve("bin").resolve(command[0]).toString());
        try {
            Path output = Files.createTempFile(workingDirectory, command[0] + "-", ".txt");
            ProcessBuilder builder =
                    new ProcessBuilder(commandLine)
                            .directory(workingDirectory.toFile())
                            .redirectErrorStream(true)
                            .redirectOutput(output.toFile());
            builder.environment().putAll(environment);
            Process process = builder.start();
            // Closed after the input: a script that reads more would wait forever.
            try (OutputStream stdin = process.getOutputStream()) {
                if (input != null) {
                    stdin.write(input.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new AssertionError(
                        String.join(" ", command) + " did not finish within " + timeout);
            }
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            assertThat(process.exitValue())
                    .as("exit code of %s, which printed:%n%s", String.join(" ", command), printed)
                    .isZero();
            return printed;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
