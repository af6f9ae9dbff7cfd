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
import org.apache.kafka.clients.producer.ProducerRecord;

import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;

import static dev.lateralsnapshot.testutils.tables.RatesAndOrders.createTable;

/**
 * The tables of the Kafka tests and the records they read, on the topics of one test: {@code
 * orders} (JSON, append-only) from the topic {@code <prefix>-orders}, {@code customers} ({@code
 * upsert-kafka}, JSON key and value, primary key {@code customer_id}) from the topic {@code
 * <prefix>-customers}, and the enriched orders written to {@code <prefix>-enriched-left} and {@code
 * <prefix>-enriched-inner}. The row time of both sources is the Kafka record's timestamp ({@code
 * METADATA FROM 'timestamp'}), which the tests set for every record they write, and each has the
 * watermark {@code AS} its row time.
 */
final class KafkaTables {

    static final String ORDERS_COLUMNS =
            "order_id BIGINT, customer_id INT,"
                    + " order_time TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,"
                    + " WATERMARK FOR order_time AS order_time";

    static final String CUSTOMERS_COLUMNS =
            "customer_id INT, tier STRING, country STRING,"
                    + " updated_at TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,"
                    + " PRIMARY KEY (customer_id) NOT ENFORCED,"
                    + " WATERMARK FOR updated_at AS updated_at";

    /**
     * The columns of a customers table that Debezium captures from PostgreSQL: the row time is the
     * change's commit time in the database (the format's metadata {@code source.timestamp}), and
     * the database table's primary key is the Flink table's.
     */
    static final String DEBEZIUM_CUSTOMERS_COLUMNS =
            "customer_id INT, tier STRING, country STRING,"
                    + " updated_at TIMESTAMP_LTZ(3) METADATA FROM 'value.source.timestamp' VIRTUAL,"
                    + " PRIMARY KEY (customer_id) NOT ENFORCED,"
                    + " WATERMARK FOR updated_at AS updated_at";

    static final String ENRICHED_COLUMNS =
            "order_id BIGINT, customer_id INT, tier STRING, country STRING";

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final DateTimeFormatter SQL_TIMESTAMP =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    final String orders;
    final String customers;
    final String enrichedLeft;
    final String enrichedInner;
    private final String bootstrapServers;

    KafkaTables(LocalKafkaBroker broker, String prefix) {
        this.bootstrapServers = broker.bootstrapServers();
        this.orders = prefix + "-orders";
        this.customers = prefix + "-customers";
        this.enrichedLeft = prefix + "-enriched-left";
        this.enrichedInner = prefix + "-enriched-inner";
    }

    /** Creates the four topics, the customers' compacted as an upsert topic should be. */
    void createTopics(LocalKafkaBroker broker, int ordersPartitions, int customersPartitions) {
        broker.createTopic(orders, ordersPartitions, Map.of());
        broker.createTopic(customers, customersPartitions, Map.of("cleanup.policy", "compact"));
        broker.createTopic(enrichedLeft, 1, Map.of());
        broker.createTopic(enrichedInner, 1, Map.of());
    }

    // ---- SQL ----

    /** Options of {@code orders} that read its topic from the start. */
    static final String FROM_EARLIEST = ", 'scan.startup.mode' = 'earliest-offset'";

    /**
     * Options of a Kafka table that make its consumer slow: each fetch waits for the broker for 200
     * ms and brings at most {@code maxPartitionFetchBytes} of a partition. A load then takes tens
     * of seconds, as that of a large table does, without writing millions of records on two cores
     * first.
     */
    static String slowConsumer(int maxPartitionFetchBytes) {
        return ", 'properties.fetch.min.bytes' = '10485760', 'properties.fetch.max.wait.ms' = '200',"
                + " 'properties.max.partition.fetch.bytes' = '"
                + maxPartitionFetchBytes
                + "'";
    }

    /**
     * Options of a Kafka sink that writes in transactions committed with each checkpoint, for
     * consumers with {@code isolation.level = read_committed}; the prefix keeps the transactional
     * ids of one sink apart from those of others on the broker.
     */
    static String exactlyOnce(String transactionalIdPrefix) {
        return ", 'sink.delivery-guarantee' = 'exactly-once',"
                + " 'sink.transactional-id-prefix' = '"
                + transactionalIdPrefix
                + "',"
                // At most the broker's transaction.max.timeout.ms (15 minutes by default); the
                // sink's default, an hour, is rejected by a broker with the default.
                + " 'properties.transaction.timeout.ms' = '900000'";
    }

    /**
     * The SQL Client's init script: UTC session time, then the tables, each with further options (a
     * leading comma each, or empty). {@code orders} starts where its options say, by default at the
     * latest offset, as a table of new orders would.
     */
    String ddl(String ordersOptions, String customersOptions, String sinkOptions) {
        return String.join(
                "\n",
                "SET 'table.local-time-zone' = 'UTC';",
                ordersTable(ordersOptions),
                customersTable("customers", customersOptions) + ";",
                createTable(
                                "enriched_left",
                                ENRICHED_COLUMNS,
                                kafka(enrichedLeft) + ", 'format' = 'json'" + sinkOptions)
                        + ";",
                createTable(
                                "enriched_inner",
                                ENRICHED_COLUMNS,
                                kafka(enrichedInner) + ", 'format' = 'json'" + sinkOptions)
                        + ";",
                "");
    }

    /** The {@code orders} table's statement, JSON from its topic, with further options. */
    private String ordersTable(String options) {
        return createTable(
                        "orders", ORDERS_COLUMNS, kafka(orders) + ", 'format' = 'json'" + options)
                + ";";
    }

    /**
     * The SQL Client's init script of a join with the customers that Debezium captures into {@code
     * debeziumTopic}: UTC session time, then {@code orders} from its earliest offset, {@code
     * customers} read with {@code debezium-json} from the topic's start, committed records only,
     * with further options, and {@code enriched} writing JSON into {@code sinkTopic}, with further
     * options.
     */
    String debeziumDdl(
            String debeziumTopic, String customersOptions, String sinkTopic, String sinkOptions) {
        return String.join(
                "\n",
                "SET 'table.local-time-zone' = 'UTC';",
                ordersTable(FROM_EARLIEST),
                createTable(
                                "customers",
                                DEBEZIUM_CUSTOMERS_COLUMNS,
                                kafka(debeziumTopic)
                                        + ", 'format' = 'debezium-json'"
                                        + FROM_EARLIEST
                                        + ", 'properties.isolation.level' = 'read_committed'"
                                        + customersOptions)
                        + ";",
                createTable(
                                "enriched",
                                ENRICHED_COLUMNS,
                                kafka(sinkTopic) + ", 'format' = 'json'" + sinkOptions)
                        + ";",
                "");
    }

    /** {@code CREATE TABLE <name>} of the customers topic, with further options. */
    String customersTable(String name, String options) {
        return createTable(
                name,
                CUSTOMERS_COLUMNS,
                "'connector' = 'upsert-kafka', 'topic' = '"
                        + customers
                        + "', 'properties.bootstrap.servers' = '"
                        + bootstrapServers
                        + "', 'key.format' = 'json', 'value.format' = 'json'"
                        + options);
    }

    /**
     * {@code INSERT INTO <sink> SELECT ... FROM orders [LEFT] JOIN LATERAL SNAPSHOT(customers)},
     * with further arguments of SNAPSHOT after {@code input} and {@code on_time}.
     */
    static String insert(String join, String sink, String... arguments) {
        return insertFrom("orders", "customers", join, sink, arguments);
    }

    /**
     * {@link #insert}, with other references to the tables: {@code orders} for example with a hint,
     * {@code customers} another table of the customers topic.
     */
    static String insertFrom(
            String orders, String customers, String join, String sink, String... arguments) {
        StringBuilder snapshot =
                new StringBuilder("input => TABLE ")
                        .append(customers)
                        .append(", on_time => DESCRIPTOR(updated_at)");
        for (String argument : arguments) {
            snapshot.append(", ").append(argument);
        }
        return "INSERT INTO "
                + sink
                + "\nSELECT o.order_id, o.customer_id, c.tier, c.country\nFROM "
                + orders
                + " AS o\n"
                + join
                + " LATERAL SNAPSHOT("
                + snapshot
                + ") AS c\nON o.customer_id = c.customer_id;\n";
    }

    /** The {@code load_completed_time} argument for the given instant (the session is in UTC). */
    static String loadCompletedTime(Instant time) {
        return "load_completed_time => CAST(TIMESTAMP '"
                + SQL_TIMESTAMP.format(time)
                + "' AS TIMESTAMP_LTZ(3))";
    }

    private String kafka(String topic) {
        return "'connector' = 'kafka', 'topic' = '"
                + topic
                + "', 'properties.bootstrap.servers' = '"
                + bootstrapServers
                + "'";
    }

    // ---- records ----

    ProducerRecord<String, String> order(int partition, long orderId, int customerId, Instant at) {
        return new ProducerRecord<>(
                orders,
                partition,
                at.toEpochMilli(),
                null,
                "{\"order_id\":" + orderId + ",\"customer_id\":" + customerId + "}");
    }

    ProducerRecord<String, String> customer(
            int partition, int customerId, String tier, String country, Instant at) {
        return new ProducerRecord<>(
                customers,
                partition,
                at.toEpochMilli(),
                customerKey(customerId),
                "{\"customer_id\":"
                        + customerId
                        + ",\"tier\":\""
                        + tier
                        + "\",\"country\":\""
                        + country
                        + "\"}");
    }

    /** A tombstone: the customer's key without a value, which deletes the customer. */
    ProducerRecord<String, String> deleteCustomer(int partition, int customerId, Instant at) {
        return new ProducerRecord<String, String>(
                customers, partition, at.toEpochMilli(), customerKey(customerId), null);
    }

    private static String customerKey(int customerId) {
        return "{\"customer_id\":" + customerId + "}";
    }

    // ---- the enriched orders ----

    /** An enriched order as the sinks write it, as {@code order_id,customer_id,tier,country}. */
    static String enrichedRow(String json) {
        try {
            JsonNode row = JSON.readTree(json);
            return String.join(
                    ",",
                    row.path("order_id").asText(),
                    row.path("customer_id").asText(),
                    row.path("tier").asText("null"),
                    row.path("country").asText("null"));
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + json, e);
        }
    }
}
