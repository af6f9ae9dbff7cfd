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

import dev.lateralsnapshot.benchmark.enrichment.RunSpec.Backend;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.ToDoubleFunction;

/**
 * The section "Latency at a fixed rate": each contender's p50, p99 and p99.9 end-to-end latency on
 * both backends, each the median over the rounds. The throughput tables' latency is that of a job
 * under backpressure, which is mostly queueing; here the probe rate is below every contender's
 * saturation and the buffer timeout short (the section says why), so the latency is the join's.
 * P4's heap runs stand in for RocksDB, marked †, as in the throughput tables.
 */
final class LatencySection {

    private record Percentile(String name, ToDoubleFunction<RunResult> micros) {}

    private static final List<Percentile> PERCENTILES =
            List.of(
                    new Percentile("p50", r -> r.p50),
                    new Percentile("p99", r -> r.p99),
                    new Percentile("p99.9", r -> r.p999));

    private LatencySection() {}

    static void write(StringBuilder md, Cells cells, Properties meta) {
        md.append("## Latency at a fixed rate\n\n").append(conditions(meta));
        List<String> names = new ArrayList<>(List.of("contender"));
        for (Backend backend : Backend.values()) {
            for (Percentile percentile : PERCENTILES) {
                names.add(backend.label + " " + percentile.name());
            }
        }
        Format.header(md, "l" + "r".repeat(names.size() - 1), names.toArray(new String[0]));
        for (Contender contender : cells.contenders()) {
            List<Object> row = new ArrayList<>(List.of(contender.label));
            for (Backend backend : Backend.values()) {
                String mark = cells.heapStandIn(contender, backend) ? " †" : "";
                for (Percentile percentile : PERCENTILES) {
                    row.add(
                            Format.millis(cells.median(contender, backend, percentile.micros()))
                                    + mark);
                }
            }
            Format.row(md, row.toArray());
        }
        md.append('\n');
    }

    private static String conditions(Properties meta) {
        return "Uniform keys, 100k build keys, "
                + meta.getProperty("fixedRate")
                + " probe rows/s (below every contender's saturation), buffer timeout "
                + meta.getProperty("latencyBufferTimeoutMillis")
                + " ms (Flink's default of 100 ms would put a 0-100 ms floor under"
                + " every contender at this rate). End-to-end: stamped at the probe"
                + " source, read at the sink.\n\n";
    }
}
