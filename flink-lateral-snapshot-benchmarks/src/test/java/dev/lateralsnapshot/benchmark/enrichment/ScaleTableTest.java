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
import dev.lateralsnapshot.benchmark.enrichment.RunSpec.Mode;
import dev.lateralsnapshot.benchmark.enrichment.RunSpec.Scenario;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The scale plan's tables compare each figure within the rounds that measured it. */
class ScaleTableTest {

    private static final Scenario ONE_MILLION = Scenario.parse(ScaleTable.scenario(1_000_000));

    @Test
    void comparesTheBuildRatesWithTheTemporalTableFunctionJoinRoundByRound() {
        List<RunResult> runs =
                List.of(
                        run(Contender.P5U, 1, 10.0, 200_000),
                        run(Contender.P1, 1, 5.0, 100_000),
                        run(Contender.P5U, 2, 10.0, 300_000),
                        run(Contender.P1, 2, 5.0, 100_000),
                        run(Contender.P3, 1, 20.0, 400_000));

        String md = ScaleTable.of(runs);

        // Round 1 is 2.00x and round 2 3.00x; the regular join's build rate is not compared.
        assertThat(md)
                .contains("| 1,000,000 | RocksDB | 250k | 100k | 2.50x | 2.00x, 3.00x |")
                .contains("P5 SNAPSHOT upsert / P3 regular LEFT | 0.50x");
        assertThat(md).doesNotContain("P5 SNAPSHOT upsert / P1");
    }

    @Test
    void leavesTheBuildRatesOutWithoutATemporalTableFunctionRun() {
        String md =
                ScaleTable.of(
                        List.of(
                                run(Contender.P5U, 1, 10.0, 200_000),
                                run(Contender.P3, 1, 20.0, 400_000)));

        assertThat(md).doesNotContain(Contender.P1.label);
    }

    @Test
    void comparesTheDrainWithTheJoinPhaseOfTheSameRun() {
        RunResult first = run(Contender.P5U, 1, 10.0, 200_000);
        first.drainRate = 300_000;
        first.rate = 400_000;
        RunResult second = run(Contender.P5U, 2, 10.0, 200_000);
        second.drainRate = 500_000;
        second.rate = 250_000;
        RunResult regular = run(Contender.P3, 1, 20.0, 400_000);
        regular.rate = 100_000;

        String md = ScaleTable.of(List.of(first, second, regular));

        // Round 1 drains at 0.75x of its join phase, round 2 at 2.00x; the regular join has none.
        String drains = md.substring(md.indexOf("| drain / join phase, median |"));
        assertThat(drains)
                .contains(
                        "| 1,000,000 | RocksDB | P5 SNAPSHOT upsert | 400k | 325k | 1.38x |"
                                + " 0.75x, 2.00x |")
                .doesNotContain(Contender.P3.label);
    }

    private static RunResult run(
            Contender contender, int round, double lastRowSeconds, double buildRowsPerSecond) {
        RunResult r =
                new RunResult(
                        new RunSpec(ONE_MILLION, Mode.SCALE, contender, Backend.ROCKSDB, round, 2));
        r.lastRowSeconds = lastRowSeconds;
        r.buildRowsPerSecond = buildRowsPerSecond;
        return r;
    }
}
