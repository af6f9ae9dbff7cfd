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

package dev.lateralsnapshot.benchmark.enrichment;

import org.apache.flink.runtime.util.EnvironmentInformation;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What is known about a run besides its results: when it ran and how long, how loaded the machine
 * was, the groups of its plan, its settings, Java, Flink and the machine. It is kept beside
 * results.csv as meta.properties, so that {@code --plan=report} rewrites the docs of a run with
 * that run's circumstances rather than those of the machine that rewrites them.
 */
final class RunMeta {

    LocalDateTime start;
    Duration duration;
    double loadBefore;
    double loadAfter;

    /** The load average at the start of every job. */
    List<Double> loads = new ArrayList<>();

    List<EnrichmentBenchmark.Group> groups;

    /** As read back from meta.properties: what the report shows. */
    Properties properties = new Properties();

    /** The 1-minute load average; NaN where the system does not tell it. */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    void write(Path dir, Settings settings) throws IOException {
        Properties p = new Properties();
        p.setProperty("start", start.toString());
        p.setProperty("durationSeconds", String.valueOf(duration.toSeconds()));
        p.setProperty("loadBefore", String.valueOf(loadBefore));
        p.setProperty("loadAfter", String.valueOf(loadAfter));
        p.setProperty(
                "loads", loads.stream().map(String::valueOf).collect(Collectors.joining(",")));
        p.setProperty("plan", settings.plan);
        p.setProperty(
                "groups",
                groups.stream()
                        .map(
                                g ->
                                        String.join(
                                                "|",
                                                g.id,
                                                g.scenario.name,
                                                g.mode.name(),
                                                String.valueOf(g.rounds),
                                                names(g.contenders),
                                                // A set: in the order of the contenders, so that
                                                // every run writes the same line.
                                                names(new TreeSet<>(g.heapOnly)),
                                                g.why))
                        .collect(Collectors.joining("\n")));
        p.setProperty("args", String.join(" ", settings.rawArgs));
        p.setProperty("parallelism", String.valueOf(settings.parallelism));
        p.setProperty("fixedRate", String.valueOf(settings.fixedRate));
        p.setProperty(
                "latencyBufferTimeoutMillis", String.valueOf(settings.latencyBufferTimeoutMillis));
        p.setProperty(
                "throughputRun",
                "warm-up "
                        + settings.warmupSeconds
                        + " s; stop at >= "
                        + settings.minSeconds
                        + " s and >= 10M probe rows, or at "
                        + settings.maxSeconds
                        + " s");
        p.setProperty(
                "latencyRun",
                settings.latencySeconds + " s, warm-up " + settings.warmupSeconds + " s");
        p.setProperty(
                "loadRun",
                settings.loadRows
                        + " probe rows buffered, load phase >= "
                        + settings.minLoadSeconds
                        + " s, then "
                        + settings.postFlipSeconds
                        + " s in the join phase");
        p.setProperty("managedMemory", settings.managedMemory);
        p.setProperty("objectReuse", String.valueOf(settings.objectReuse));
        p.setProperty(
                "java",
                System.getProperty("java.vm.name")
                        + " "
                        + System.getProperty("java.runtime.version"));
        p.setProperty(
                "jvmArgs",
                ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                        .filter(a -> !a.startsWith("--add-opens"))
                        .collect(Collectors.joining(" ")));
        p.setProperty("maxHeap", Format.bytes(Runtime.getRuntime().maxMemory()));
        p.setProperty("cpus", String.valueOf(Runtime.getRuntime().availableProcessors()));
        p.setProperty("cpuModel", cpuModel());
        p.setProperty("memory", memTotal());
        p.setProperty("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        p.setProperty("flink", EnvironmentInformation.getVersion());
        try (Writer w = Files.newBufferedWriter(dir.resolve("meta.properties"))) {
            p.store(w, "enrichment benchmark run");
        }
    }

    static RunMeta read(Path dir) throws IOException {
        RunMeta meta = new RunMeta();
        try (Reader r = Files.newBufferedReader(dir.resolve("meta.properties"))) {
            meta.properties.load(r);
        }
        Properties p = meta.properties;
        meta.start = LocalDateTime.parse(p.getProperty("start"));
        meta.duration = Duration.ofSeconds(Long.parseLong(p.getProperty("durationSeconds")));
        meta.loadBefore = Double.parseDouble(p.getProperty("loadBefore"));
        meta.loadAfter = Double.parseDouble(p.getProperty("loadAfter"));
        for (String l : p.getProperty("loads", "").split(",")) {
            if (!l.isBlank()) {
                meta.loads.add(Double.parseDouble(l));
            }
        }
        return meta;
    }

    /** Contender names as the options take them, separated by spaces. */
    private static String names(Collection<Contender> contenders) {
        return contenders.stream().map(Contender::name).collect(Collectors.joining(" "));
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String memTotal() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream()
                    .filter(l -> l.startsWith("MemTotal"))
                    .map(
                            l ->
                                    String.format(
                                            Locale.ROOT,
                                            "%.0f GiB",
                                            Long.parseLong(l.replaceAll("[^0-9]", ""))
                                                    / 1024.0
                                                    / 1024))
                    .findFirst()
                    .orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
