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
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the CDC tests and the CDC tutorial build on: Debezium's PostgreSQL connector on the local
 * Connect worker writes a table's snapshot and changes into Kafka in the form Flink's {@code
 * debezium-json} format reads: snapshot rows with {@code op = r}, all with the snapshot's start as
 * their {@code source.ts_ms}; updates with their before image (the table's replica identity is
 * FULL); and deletes followed by a tombstone. {@code CdcScenariosIT} kills the worker.
 */
@ExtendWith({LocalKafkaAndFlink.class, LocalPostgresAndConnect.class})
class DebeziumConnectorIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final Duration QUIET = Duration.ofSeconds(2);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final LocalKafkaBroker broker = LocalKafkaAndFlink.broker();
    private final LocalPostgres postgres = LocalPostgresAndConnect.postgres();
    private final LocalConnectWorker connect = LocalPostgresAndConnect.connect();

    @Test
    void writesTheSnapshotAndTheChangesOfATable() {
        long start = System.nanoTime();
        String topic = "connector-check.public.accounts";
        postgres.psql(
                "CREATE TABLE accounts (id INT PRIMARY KEY, owner TEXT);\n"
                        + "ALTER TABLE accounts REPLICA IDENTITY FULL;\n"
                        + "INSERT INTO accounts SELECT i, 'owner-' || i FROM generate_series(1, 100) i;\n");
        connect.addConnector(
                "connector-check",
                LocalPostgresAndConnect.debeziumConnector("connector-check", "accounts"));

        List<JsonNode> snapshot = values(topic, 100);
        assertThat(snapshot).hasSize(100);
        assertThat(snapshot)
                .allSatisfy(value -> assertThat(value.path("op").asText()).isEqualTo("r"));
        assertThat(snapshot.get(0).path("source").path("snapshot").asText()).isEqualTo("first");
        assertThat(snapshot.get(99).path("source").path("snapshot").asText()).isEqualTo("last");
        assertThat(snapshot)
                .as("one source.ts_ms for the whole snapshot")
                .extracting(value -> value.path("source").path("ts_ms").asLong())
                .containsOnly(snapshot.get(0).path("source").path("ts_ms").asLong());

        postgres.psql(
                "UPDATE accounts SET owner = 'changed' WHERE id = 1;\n"
                        + "DELETE FROM accounts WHERE id = 2;\n");
        List<JsonNode> changes = values(topic, 103).subList(100, 103);
        assertThat(changes.get(0).path("op").asText()).isEqualTo("u");
        assertThat(changes.get(0).path("before").path("owner").asText()).isEqualTo("owner-1");
        assertThat(changes.get(0).path("after").path("owner").asText()).isEqualTo("changed");
        assertThat(changes.get(1).path("op").asText()).isEqualTo("d");
        assertThat(changes.get(1).path("before").path("id").asInt()).isEqualTo(2);
        assertThat(changes.get(2).isNull()).as("the tombstone after the delete").isTrue();
        assertThat(changes.get(0).path("source").path("ts_ms").asLong())
                .as("a change's source.ts_ms, its commit time, after the snapshot's")
                .isGreaterThan(snapshot.get(0).path("source").path("ts_ms").asLong());

        System.out.printf(
                "[cdc] Debezium %s on Kafka Connect: a snapshot of 100 rows (op r, one"
                        + " source.ts_ms), an update with its before image, a delete and its"
                        + " tombstone; %.1f s%n",
                snapshot.get(0).path("source").path("version").asText(),
                (System.nanoTime() - start) / 1e9);
    }

    /** The values of the topic, JSON, a tombstone as JSON null, once at least {@code expected}. */
    private List<JsonNode> values(String topic, int expected) {
        List<JsonNode> values = new ArrayList<>();
        for (ConsumerRecord<String, String> record :
                broker.readCommitted(topic, expected, QUIET, TIMEOUT)) {
            try {
                values.add(
                        record.value() == null ? JSON.nullNode() : JSON.readTree(record.value()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return values;
    }
}
