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

import dev.lateralsnapshot.benchmark.enrichment.RunSpec.Mode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes docs/benchmarks.md and docs/benchmarks.png from the results of a run. A class writes each
 * section of the page, in the order a reader wants them: how the run was made ({@link RunSection}),
 * the main comparison ({@link ThroughputSection}), latency at a fixed rate ({@link
 * LatencySection}), the load phase ({@link LoadPhaseSection}), the other data sets, the targets
 * ({@link TargetsSection}) and every run ({@link RunsSection}). A section whose runs are not among
 * the results is left out, so that the page of a partial plan (--only, --plan=quick) shows only
 * what it measured.
 */
final class Report {

    private Report() {}

    static void write(Settings settings, RunMeta meta, List<RunResult> results) throws IOException {
        Files.createDirectories(settings.docsDir);
        Cells a = new Cells(results, "uniform-100k", Mode.THROUGHPUT);
        Cells d = new Cells(results, "uniform-100k", Mode.LATENCY);
        Cells e = new Cells(results, "uniform-100k", Mode.LOAD);
        Cells b = new Cells(results, "zipf-100k", Mode.THROUGHPUT);
        Cells c = new Cells(results, "uniform-1m", Mode.THROUGHPUT);

        StringBuilder md = new StringBuilder();
        RunSection.write(md, meta);
        if (!a.isEmpty()) {
            ThroughputSection.writeMain(md, a);
        }
        if (!d.isEmpty()) {
            LatencySection.write(md, d, meta.properties);
        }
        if (!e.isEmpty()) {
            LoadPhaseSection.write(md, e, meta.properties);
        }
        if (!b.isEmpty()) {
            ThroughputSection.write(md, "Skewed keys (Zipf 0.99), 100k build keys", b);
        }
        if (!c.isEmpty()) {
            ThroughputSection.write(md, "Uniform keys, 1M build keys", c);
        }
        if (!a.isEmpty()) {
            // Most targets are ratios of the main comparison's throughput.
            TargetsSection.write(md, a, d, e);
        }
        RunsSection.write(md, results);

        Path page = settings.docsDir.resolve("benchmarks.md");
        // The scale section comes from runs of its own plan, which this run does not repeat.
        String scale =
                Files.exists(page)
                        ? ScaleSection.of(Files.readString(page, StandardCharsets.UTF_8))
                        : "";
        String written =
                scale.isEmpty() ? md.toString() : ScaleSection.replace(md.toString(), scale);
        Files.writeString(page, written, StandardCharsets.UTF_8);
        Chart.write(settings.docsDir.resolve("benchmarks.png"), a, d, b, c);
        System.out.println("Wrote " + page + " and benchmarks.png");
    }
}
