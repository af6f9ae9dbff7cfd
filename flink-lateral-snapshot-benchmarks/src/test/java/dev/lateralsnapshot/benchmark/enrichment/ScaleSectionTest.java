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

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The scale plan rewrites its own section of the page, and nothing else of it. */
class ScaleSectionTest {

    private static final String SECTION = ScaleSection.HEADING + "\n\nnew table\n";

    @Test
    void appendsTheSectionToAPageWithoutIt() {
        assertThat(ScaleSection.replace("# Page\n\n## Run\n\ntext\n", SECTION))
                .isEqualTo("# Page\n\n## Run\n\ntext\n\n" + SECTION);
    }

    @Test
    void replacesTheSectionInPlaceAndKeepsWhatFollows() {
        String page =
                "# Page\n\n"
                        + ScaleSection.HEADING
                        + "\n\nold table\n\n### A part of it\n\nmore\n\n## Every run\n\nruns\n";

        assertThat(ScaleSection.replace(page, SECTION))
                .isEqualTo("# Page\n\n" + SECTION + "\n## Every run\n\nruns\n");
    }

    @Test
    void aDefaultRunKeepsTheSectionOfTheLastScaleRun() {
        String before = "# Page\n\n## Run\n\nold\n\n" + SECTION;
        String rewritten = "# Page\n\n## Run\n\nnew\n";

        String kept = ScaleSection.replace(rewritten, ScaleSection.of(before));

        assertThat(kept).isEqualTo("# Page\n\n## Run\n\nnew\n\n" + SECTION);
        assertThat(ScaleSection.of("# Page\n\n## Run\n")).isEmpty();
    }
}
