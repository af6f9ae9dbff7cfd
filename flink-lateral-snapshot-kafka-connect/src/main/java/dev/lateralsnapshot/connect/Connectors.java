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

package dev.lateralsnapshot.connect;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code bin/connect-local.sh add-connector} and {@code status}: the two calls of Kafka Connect's
 * REST API that the CDC tutorial makes, so that it needs no HTTP client of the machine's.
 *
 * <p>Arguments: {@code <worker url> add <connector json file>}, which posts the file to {@code
 * /connectors} as it is; or {@code <worker url> status <connector>}, which prints the connector's
 * status as the worker reports it ({@code /connectors/<connector>/status}).
 *
 * <p>A distributed worker refuses to add a connector while it starts (no answer, then 404 Not Found
 * until its herder has started) and while it joins its group or reads its configuration topic (409
 * Conflict); {@code add} asks again for up to a minute then.
 */
public final class Connectors {

    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final Duration RETRY_DELAY = Duration.ofMillis(500);

    private Connectors() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length != 3 || !(args[1].equals("add") || args[1].equals("status"))) {
            System.err.println(
                    "Usage: Connectors <worker url> add <connector json file>"
                            + " | Connectors <worker url> status <connector>");
            System.exit(2);
        }
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        if (args[1].equals("add")) {
            add(client, args[0], Path.of(args[2]));
        } else {
            status(client, args[0], args[2]);
        }
    }

    private static void add(HttpClient client, String worker, Path file)
            throws IOException, InterruptedException {
        HttpRequest request =
                HttpRequest.newBuilder(URI.create(worker + "/connectors"))
                        .header("Content-Type", "application/json")
                        .header("Accept", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofFile(file))
                        .build();
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            String refusal;
            try {
                HttpResponse<String> response =
                        client.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 201) {
                    System.out.println("Added connector from " + file + ": " + response.body());
                    return;
                }
                refusal = response.statusCode() + " " + response.body();
                boolean starting = response.statusCode() == 404;
                boolean busy =
                        response.statusCode() == 409 && !response.body().contains("already exists");
                if (!starting && !busy) {
                    fail("The worker at " + worker + " refused the connector of " + file, refusal);
                }
            } catch (ConnectException e) {
                refusal = "no connection: " + e.getMessage();
            }
            if (System.nanoTime() > deadline) {
                fail(
                        "The worker at "
                                + worker
                                + " did not take the connector of "
                                + file
                                + " within "
                                + PATIENCE.toSeconds()
                                + " s",
                        refusal);
            }
            Thread.sleep(RETRY_DELAY.toMillis());
        }
    }

    private static void status(HttpClient client, String worker, String connector)
            throws IOException, InterruptedException {
        HttpRequest request =
                HttpRequest.newBuilder(URI.create(worker + "/connectors/" + connector + "/status"))
                        .header("Accept", "application/json")
                        .GET()
                        .build();
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            fail(
                    "The worker at " + worker + " has no status of connector " + connector,
                    response.statusCode() + " " + response.body());
        }
        System.out.println(response.body());
    }

    private static void fail(String what, String answer) {
        System.err.println(what + ": " + answer);
        System.exit(1);
    }
}
