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

package dev.lateralsnapshot.tests.plan;

import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableDescriptor;
import org.apache.flink.table.api.TableEnvironment;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the plan tests read from plans: a statement's {@code EXPLAIN} output, checked against the
 * golden file of its case ({@link GoldenFiles}); the physical plan in that output and its lines;
 * and the LATERAL SNAPSHOT join nodes of a compiled plan, which hold what {@code EXPLAIN} does not
 * show (the build side's layout, the position of {@code on_time} in the build rows).
 */
final class Plans {

    /** The type of the join's exec node in compiled plans, with its version. */
    static final String JOIN_TYPE = "stream-exec-lateral-snapshot-join_1";

    private static final ObjectMapper JSON = new ObjectMapper();

    private Plans() {}

    /**
     * Explains the statement, checks the statement and the output against the golden file of the
     * test's case, and returns the output.
     */
    static String explain(
            Class<?> test,
            String caseName,
            TableEnvironment env,
            String statement,
            ExplainDetail... details)
            throws IOException {
        String explained = env.explainSql(statement, details);
        GoldenFiles.assertMatches(test, caseName, goldenText(statement, explained, details));
        return explained;
    }

    /** What the golden file of an explained statement holds: the statement, then the output. */
    static String goldenText(String statement, String explained, ExplainDetail... details) {
        String names =
                Arrays.stream(details)
                        .map(detail -> " " + detail.name())
                        .collect(Collectors.joining());
        return "EXPLAIN" + names + " " + statement + "\n\n" + explained;
    }

    /** The optimized physical plan of {@code EXPLAIN}'s output, without the other sections. */
    static String physicalPlan(String explained) {
        int start = explained.indexOf("== Optimized Physical Plan");
        int end = explained.indexOf("== Optimized Execution Plan");
        assertThat(start).as("physical plan section of%n%s", explained).isNotNegative();
        return explained.substring(start, end).trim();
    }

    /** The lines of the plan that contain the given text, without their indentation. */
    static List<String> planLines(String plan, String text) {
        List<String> lines = new ArrayList<>();
        for (String line : plan.split("\n")) {
            if (line.contains(text)) {
                lines.add(line.trim());
            }
        }
        return lines;
    }

    /**
     * The LATERAL SNAPSHOT join nodes of the query's compiled plan, the query written into a {@code
     * blackhole} sink: the nodes that the planner translates the query to, as a compiled plan keeps
     * them.
     */
    static List<ObjectNode> compiledJoinNodes(TableEnvironment env, String query) {
        return joinNodes(
                env.sqlQuery(query)
                        .insertInto(TableDescriptor.forConnector("blackhole").build())
                        .compilePlan()
                        .asJsonString());
    }

    /** The LATERAL SNAPSHOT join nodes of a compiled plan's JSON, in the plan's order. */
    static List<ObjectNode> joinNodes(String compiledPlan) {
        List<ObjectNode> joins = new ArrayList<>();
        try {
            for (JsonNode node : JSON.readTree(compiledPlan).get("nodes")) {
                if (node.get("type").asText().equals(JOIN_TYPE)) {
                    joins.add((ObjectNode) node);
                }
            }
        } catch (IOException e) {
            throw new AssertionError("The plan is no JSON: " + compiledPlan, e);
        }
        return joins;
    }

    /** The build side's layout of each LATERAL SNAPSHOT join of the query, in the plan's order. */
    static List<String> buildSideLayouts(TableEnvironment env, String query) {
        return compiledJoinNodes(env, query).stream()
                .map(join -> join.get("lateralSnapshotBuildSideLayout").asText())
                .collect(Collectors.toList());
    }
}
