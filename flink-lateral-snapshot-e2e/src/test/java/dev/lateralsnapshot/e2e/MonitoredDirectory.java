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
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** A directory that a job's filesystem source monitors for new files. */
final class MonitoredDirectory {

    private MonitoredDirectory() {}

    /**
     * Drops a file into the directory whole: it is written under a name that starts with a dot,
     * which the filesystem source skips, and then renamed, so the source never sees half of it.
     */
    static void drop(Path directory, String name, String content) {
        try {
            Path hidden = directory.resolve("." + name);
            Files.writeString(hidden, content, StandardCharsets.UTF_8);
            Files.move(hidden, directory.resolve(name), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
