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

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * Build step that writes the planner jar embedded in the drop-in jar.
 *
 * <p>{@code flink-table-planner-loader} carries Flink's real planner as a nested jar, {@code
 * flink-table-planner.jar}, and runs it in its own class loader that sees only that jar (and {@code
 * org.apache.flink} classes of {@code lib/}). This step copies that nested jar entry by entry, adds
 * our planner and runtime classes, and changes one line of its factory service file: Flink's {@code
 * DefaultPlannerFactory} gives way to our wrapper, which installs the LATERAL SNAPSHOT join and
 * then delegates to it. Exactly one factory per type keeps the identifier {@code default}; the
 * executor and parser factories stay Flink's.
 *
 * <p>The build fails when the nested jar or the service line is not found exactly once, or when an
 * added jar would overwrite an entry of Flink's planner.
 *
 * <p>Run as a single-file program: {@code java RepackagePlannerLoader.java <loader jar> <output
 * jar> <added jar>...}.
 */
public final class RepackagePlannerLoader {

    private static final String NESTED_PLANNER = "flink-table-planner.jar";
    private static final String FACTORY_SERVICES =
            "META-INF/services/org.apache.flink.table.factories.Factory";
    private static final String FLINK_PLANNER_FACTORY =
            "org.apache.flink.table.planner.delegation.DefaultPlannerFactory";
    private static final String OUR_PLANNER_FACTORY =
            "dev.lateralsnapshot.planner.delegation.LateralSnapshotPlannerFactory";

    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            fail("usage: RepackagePlannerLoader <loader jar> <output jar> <added jar>...");
        }
        Path loader = Path.of(args[0]);
        Path output = Path.of(args[1]);
        List<Path> added = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            added.add(Path.of(args[i]));
        }
        Files.createDirectories(output.getParent());
        Set<String> written = new HashSet<>();
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(output))) {
            copyFlinkPlanner(nestedPlanner(loader), out, written);
            for (Path jar : added) {
                copyClassesAndResources(jar, out, written);
            }
        }
    }

    /** The bytes of the planner jar nested in the loader jar. */
    private static byte[] nestedPlanner(Path loader) throws IOException {
        byte[] planner = null;
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(loader))) {
            for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                if (entry.getName().equals(NESTED_PLANNER)) {
                    if (planner != null) {
                        fail(loader + " contains " + NESTED_PLANNER + " twice");
                    }
                    planner = in.readAllBytes();
                }
            }
        }
        if (planner == null) {
            fail(loader + " contains no " + NESTED_PLANNER + "; Flink changed its planner loader");
        }
        return planner;
    }

    private static void copyFlinkPlanner(byte[] planner, ZipOutputStream out, Set<String> written)
            throws IOException {
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(planner))) {
            for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                byte[] content = in.readAllBytes();
                if (entry.getName().equals(FACTORY_SERVICES)) {
                    content = replacePlannerFactory(content);
                }
                write(entry, content, out, written);
            }
        }
        if (!written.contains(FACTORY_SERVICES)) {
            fail(NESTED_PLANNER + " has no " + FACTORY_SERVICES);
        }
    }

    private static byte[] replacePlannerFactory(byte[] services) {
        List<String> lines = new ArrayList<>();
        int replaced = 0;
        for (String line : new String(services, StandardCharsets.UTF_8).split("\n", -1)) {
            if (line.trim().equals(FLINK_PLANNER_FACTORY)) {
                lines.add(OUR_PLANNER_FACTORY);
                replaced++;
            } else {
                lines.add(line);
            }
        }
        if (replaced != 1) {
            fail(
                    FACTORY_SERVICES
                            + " of "
                            + NESTED_PLANNER
                            + " lists "
                            + FLINK_PLANNER_FACTORY
                            + " "
                            + replaced
                            + " times instead of once");
        }
        return String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
    }

    /** Copies everything of one of our jars except its manifest and Maven metadata. */
    private static void copyClassesAndResources(Path jar, ZipOutputStream out, Set<String> written)
            throws IOException {
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(jar))) {
            for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                String name = entry.getName();
                if (name.startsWith("META-INF/")) {
                    if (name.startsWith("META-INF/services/")) {
                        fail(jar + " has a service file, which would need merging: " + name);
                    }
                    continue;
                }
                if (!entry.isDirectory() && written.contains(name)) {
                    fail(jar + " would overwrite " + name + " of Flink's planner");
                }
                write(entry, in.readAllBytes(), out, written);
            }
        }
    }

    private static void write(
            ZipEntry source, byte[] content, ZipOutputStream out, Set<String> written)
            throws IOException {
        if (!written.add(source.getName())) {
            return; // a directory that two jars share
        }
        ZipEntry entry = new ZipEntry(source.getName());
        entry.setTime(source.getTime());
        out.putNextEntry(entry);
        out.write(content);
        out.closeEntry();
    }

    private static void fail(String message) {
        System.err.println("RepackagePlannerLoader: " + message);
        System.exit(1);
    }
}
