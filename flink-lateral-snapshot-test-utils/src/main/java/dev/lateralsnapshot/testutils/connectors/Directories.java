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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/** The directories the filesystem connector reads and writes in these tests. */
public final class Directories {

    private Directories() {}

    /**
     * The options of a filesystem table over a directory, in a format. Without {@code
     * 'source.monitor-interval'} the source reads the files there once, and ends.
     */
    public static String filesystem(Path directory, String format) {
        return "'connector' = 'filesystem', 'path' = '"
                + directory.toUri()
                + "', 'format' = '"
                + format
                + "'";
    }

    /**
     * Drops a file into a directory that a filesystem source monitors, atomically: the source skips
     * files whose name starts with a dot, so it never sees half a file.
     */
    public static void writeAtomically(Path directory, String name, List<String> lines) {
        Path hidden = directory.resolve("." + name);
        try {
            Files.write(hidden, lines, StandardCharsets.UTF_8);
            Files.move(hidden, directory.resolve(name), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The lines of the files a filesystem sink has committed: in-progress and pending files are
     * hidden (their names start with a dot) until a checkpoint commits them.
     */
    public static List<String> committedLines(Path directory) {
        List<String> lines = new ArrayList<>();
        forEachCommittedLine(directory, lines::add);
        return lines;
    }

    /** Streams the committed lines, for outputs too large to hold. */
    public static void forEachCommittedLine(Path directory, Consumer<String> consumer) {
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                if (!file.getFileName().toString().startsWith(".")) {
                    try (Stream<String> lines = Files.lines(file, StandardCharsets.UTF_8)) {
                        lines.forEach(consumer);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
