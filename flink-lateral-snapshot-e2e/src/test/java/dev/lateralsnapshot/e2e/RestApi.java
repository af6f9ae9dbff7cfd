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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The JobManager's REST API (the one behind the Web UI), as JSON. */
final class RestApi {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> FINAL_STATES = Set.of("FINISHED", "CANCELED", "FAILED");

    private final String baseUrl;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    RestApi(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** GETs a path; fails unless the answer is 200. */
    JsonNode get(String path) {
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri(path)).GET());
        if (response.statusCode() != 200) {
            throw new AssertionError(
                    "GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return parse(response.body());
    }

    /** POSTs a JSON body to a path; fails unless the answer has the expected status. */
    JsonNode post(String path, String json, int expectedStatus) {
        HttpResponse<String> response =
                send(
                        HttpRequest.newBuilder(uri(path))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(json)));
        if (response.statusCode() != expectedStatus) {
            throw new AssertionError(
                    "POST " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return parse(response.body());
    }

    /** GETs a path, empty while the server is not up yet or answers with an error. */
    Optional<JsonNode> tryGet(String path) {
        try {
            HttpResponse<String> response =
                    http.send(
                            HttpRequest.newBuilder(uri(path)).GET().build(),
                            HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200
                    ? Optional.of(parse(response.body()))
                    : Optional.empty();
        } catch (IOException notUpYet) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** GETs a path as text, for the Web UI's pages. */
    String getText(String path) {
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri(path)).GET());
        if (response.statusCode() != 200) {
            throw new AssertionError("GET " + path + " answered " + response.statusCode());
        }
        return response.body();
    }

    /** Cancels a job, as the Web UI's "Cancel Job" button does. */
    void cancel(String jobId) {
        HttpResponse<String> response =
                send(
                        HttpRequest.newBuilder(uri("/jobs/" + jobId + "?mode=cancel"))
                                .method("PATCH", HttpRequest.BodyPublishers.noBody()));
        if (response.statusCode() != 202) {
            throw new AssertionError("cancelling " + jobId + " answered " + response.statusCode());
        }
    }

    /**
     * Stops a job with a savepoint into the cluster's savepoint directory, as {@code flink stop}
     * does ({@code POST /jobs/<id>/stop}), and waits until the savepoint is complete; returns its
     * path.
     */
    String stopWithSavepoint(String jobId, Duration timeout) {
        String trigger =
                post("/jobs/" + jobId + "/stop", "{\"drain\": false}", 202)
                        .path("request-id")
                        .asText();
        JsonNode savepoint =
                Wait.until(
                        timeout,
                        "the savepoint of job " + jobId + " complete",
                        () -> get("/jobs/" + jobId + "/savepoints/" + trigger),
                        answer -> answer.path("status").path("id").asText().equals("COMPLETED"));
        JsonNode operation = savepoint.path("operation");
        if (!operation.has("location")) {
            throw new AssertionError("the savepoint of job " + jobId + " failed: " + operation);
        }
        return operation.path("location").asText();
    }

    /** The ids of the jobs that have not reached a final state. */
    List<String> unfinishedJobIds() {
        List<String> ids = new ArrayList<>();
        for (JsonNode job : get("/jobs").path("jobs")) {
            if (!FINAL_STATES.contains(job.path("status").asText())) {
                ids.add(job.path("id").asText());
            }
        }
        return ids;
    }

    private HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return http.send(
                    request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError("REST call to " + baseUrl + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private URI uri(String path) {
        return URI.create(baseUrl + path);
    }

    private static JsonNode parse(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + body, e);
        }
    }
}
