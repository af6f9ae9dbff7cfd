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

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A Kafka node on this machine, broker and KRaft controller in one JVM, started from the jars of
 * the distribution's {@code kafka/libs/} by its {@code bin/kafka-local.sh}, as a user starts one,
 * and the Kafka clients the tests use on it: topics are created with Kafka's admin client, records
 * written and read with its producer and consumer.
 *
 * <p>Every node gets a directory of its own (configuration, data, log, PID file) and free ports.
 * {@link #close()} stops it by PID; a JVM shutdown hook kills it if the test JVM ends without
 * closing it.
 */
final class LocalKafkaBroker implements AutoCloseable {

    private static final Duration SCRIPT_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(30);
    private static final int START_ATTEMPTS = 3;

    private static final String MAIN_CLASS = "kafka.Kafka";

    private final Path directory;
    private final String bootstrapServers;
    private final Thread shutdownHook;
    private final KafkaProducer<String, String> producer;
    private volatile boolean paused;

    private LocalKafkaBroker(Path directory, int port, Thread shutdownHook) {
        this.directory = directory;
        this.bootstrapServers = "localhost:" + port;
        this.shutdownHook = shutdownHook;
        Properties properties = clientProperties();
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        // Each call of send() is one batch that the test waits for: no reason to linger.
        properties.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        this.producer = new KafkaProducer<>(properties);
    }

    /**
     * Starts a node with {@code bin/kafka-local.sh start} and waits until its broker answers. A
     * port found free can be taken before the node binds it; a start that fails is therefore tried
     * again, on new ports, a few times.
     */
    static LocalKafkaBroker start() throws IOException {
        Path runs = DistributionScript.distribution().getParent().resolve("e2e-runs");
        Files.createDirectories(runs);
        for (int attempt = 1; ; attempt++) {
            Path directory = Files.createTempDirectory(runs, "kafka-");
            int port = FreePort.find();
            Map<String, String> environment =
                    Map.of(
                            "KAFKA_LOCAL_DIR", directory.toString(),
                            "KAFKA_PORT", String.valueOf(port),
                            "KAFKA_CONTROLLER_PORT", String.valueOf(FreePort.find()));
            Thread shutdownHook = new Thread(() -> killNode(directory), "stop-local-kafka");
            Runtime.getRuntime().addShutdownHook(shutdownHook);
            LocalKafkaBroker broker = null;
            try {
                DistributionScript.run(
                        directory, environment, SCRIPT_TIMEOUT, null, "kafka-local.sh", "start");
                broker = new LocalKafkaBroker(directory, port, shutdownHook);
                broker.awaitBroker();
                return broker;
            } catch (RuntimeException | Error e) {
                if (broker != null) {
                    broker.close();
                } else {
                    killNode(directory);
                    Runtime.getRuntime().removeShutdownHook(shutdownHook);
                }
                if (attempt == START_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /** {@code localhost:<port>}, for {@code properties.bootstrap.servers} and the clients. */
    String bootstrapServers() {
        return bootstrapServers;
    }

    // ---- topics ----

    /** Creates a topic with one replica, with the given topic configuration. */
    void createTopic(String name, int partitions, Map<String, String> config) {
        withAdmin(
                "creating topic " + name,
                admin ->
                        admin.createTopics(
                                        List.of(
                                                new NewTopic(name, partitions, (short) 1)
                                                        .configs(config)))
                                .all());
    }

    /** Sets one configuration option of a topic. */
    void setTopicConfig(String topic, String key, String value) {
        withAdmin(
                "setting " + key + " of topic " + topic,
                admin ->
                        admin.incrementalAlterConfigs(
                                        Map.of(
                                                new ConfigResource(
                                                        ConfigResource.Type.TOPIC, topic),
                                                List.of(
                                                        new AlterConfigOp(
                                                                new ConfigEntry(key, value),
                                                                AlterConfigOp.OpType.SET))))
                                .all());
    }

    // ---- records ----

    /**
     * Writes the records, each with the partition, key (null for none), value (null for a
     * tombstone) and timestamp it has, and waits until the broker has them all.
     */
    void send(List<ProducerRecord<String, String>> records) {
        List<Future<?>> sent = new ArrayList<>();
        for (ProducerRecord<String, String> record : records) {
            sent.add(producer.send(record));
        }
        producer.flush();
        try {
            for (Future<?> future : sent) {
                future.get(CLIENT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("writing " + records.size() + " records", e);
        }
    }

    /**
     * Reads a topic from its beginning as a consumer with {@code isolation.level = read_committed}
     * does (records of transactions that were aborted or are still open are left out), until it has
     * read at least {@code expected} records and no more came for {@code quiet}; fails if fewer
     * than {@code expected} came within the timeout. Returns the records in the order of each
     * partition.
     */
    List<ConsumerRecord<String, String>> readCommitted(
            String topic, long expected, Duration quiet, Duration timeout) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = readCommittedConsumer()) {
            List<TopicPartition> partitions = partitionsOnceCreated(consumer, topic, timeout);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + timeout.toNanos();
            long lastRecord = System.nanoTime();
            while (records.size() < expected || System.nanoTime() - lastRecord < quiet.toNanos()) {
                if (records.size() < expected && System.nanoTime() > deadline) {
                    throw new AssertionError(
                            "Timed out after "
                                    + timeout
                                    + " waiting for "
                                    + expected
                                    + " records in topic "
                                    + topic
                                    + "; read "
                                    + records.size());
                }
                for (ConsumerRecord<String, String> record :
                        consumer.poll(Duration.ofMillis(200))) {
                    records.add(record);
                    lastRecord = System.nanoTime();
                }
            }
        }
        return records;
    }

    /**
     * The records of a topic from the given offsets (by partition; a partition not given from its
     * beginning) up to where its committed records end now, read as a consumer with {@code
     * isolation.level = read_committed} does, in the order of each partition. Returns at once when
     * there is nothing new: for a test that follows a topic as it grows.
     */
    List<ConsumerRecord<String, String>> readCommittedFrom(
            String topic, Map<Integer, Long> offsets) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = readCommittedConsumer()) {
            List<TopicPartition> partitions = partitions(consumer, topic);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            for (TopicPartition partition : partitions) {
                Long offset = offsets.get(partition.partition());
                if (offset != null) {
                    consumer.seek(partition, offset);
                }
            }
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, CLIENT_TIMEOUT);
            long deadline = System.nanoTime() + CLIENT_TIMEOUT.toNanos();
            while (partitions.stream()
                    .anyMatch(p -> consumer.position(p, CLIENT_TIMEOUT) < ends.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(
                            "Timed out after "
                                    + CLIENT_TIMEOUT
                                    + " reading topic "
                                    + topic
                                    + " up to "
                                    + ends
                                    + "; read "
                                    + records.size());
                }
                for (ConsumerRecord<String, String> record :
                        consumer.poll(Duration.ofMillis(200))) {
                    records.add(record);
                }
            }
        }
        return records;
    }

    /**
     * Where the committed records of each partition of a topic end now: the offsets from which
     * {@link #readCommittedFrom} reads what comes after.
     */
    Map<Integer, Long> endOffsets(String topic) {
        try (KafkaConsumer<String, String> consumer = readCommittedConsumer()) {
            return consumer
                    .endOffsets(partitions(consumer, topic), CLIENT_TIMEOUT)
                    .entrySet()
                    .stream()
                    .collect(
                            Collectors.toMap(end -> end.getKey().partition(), Map.Entry::getValue));
        }
    }

    private KafkaConsumer<String, String> readCommittedConsumer() {
        Properties properties = clientProperties();
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        properties.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
        return new KafkaConsumer<>(properties);
    }

    private static List<TopicPartition> partitions(
            KafkaConsumer<String, String> consumer, String topic) {
        return consumer.partitionsFor(topic, CLIENT_TIMEOUT).stream()
                .map(info -> new TopicPartition(topic, info.partition()))
                .collect(Collectors.toList());
    }

    /**
     * The partitions of the topic, once it has any: a topic that a connector creates with its first
     * records (Debezium's) may not exist yet when a test starts to read it.
     */
    private static List<TopicPartition> partitionsOnceCreated(
            KafkaConsumer<String, String> consumer, String topic, Duration timeout) {
        return Wait.until(
                timeout,
                "topic " + topic + " to exist",
                () -> partitions(consumer, topic),
                partitions -> !partitions.isEmpty());
    }

    /**
     * Runs {@code bin/kafka-local.sh} with the arguments against this node, as a user would in the
     * shell that started it; returns what it printed.
     */
    String script(String... arguments) {
        String[] command = new String[arguments.length + 1];
        command[0] = "kafka-local.sh";
        System.arraycopy(arguments, 0, command, 1, arguments.length);
        return DistributionScript.run(
                directory,
                Map.of("KAFKA_LOCAL_DIR", directory.toString()),
                SCRIPT_TIMEOUT,
                null,
                command);
    }

    // ---- a hanging broker ----

    /**
     * Stops the node's process ({@code kill -STOP}), as a broker that hangs in a long garbage
     * collection or on a stalled disk: its connections stay open and nothing answers.
     */
    void pause() {
        signal("STOP");
        paused = true;
    }

    /** Lets a paused node run again ({@code kill -CONT}). */
    void resume() {
        signal("CONT");
        paused = false;
    }

    private void signal(String signal) {
        try {
            long pid =
                    Long.parseLong(
                            Files.readString(directory.resolve("kafka.pid"), StandardCharsets.UTF_8)
                                    .trim());
            Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(pid)).start();
            if (!kill.waitFor(CLIENT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    || kill.exitValue() != 0) {
                throw new AssertionError("kill -" + signal + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    // ---- stopping ----

    @Override
    public void close() {
        try {
            if (paused) {
                resume();
            }
            producer.close(CLIENT_TIMEOUT);
            script("stop");
        } finally {
            killNode(directory);
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs or ran already
            }
        }
    }

    /** The backstop: kills the node if it still runs, and only if the process is this node. */
    private static void killNode(Path directory) {
        Path pidFile = directory.resolve("kafka.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        String config = directory.resolve("server.properties").toString();
        try {
            long pid = Long.parseLong(Files.readString(pidFile, StandardCharsets.UTF_8).trim());
            Optional<ProcessHandle> process = ProcessHandle.of(pid);
            boolean ours =
                    process.filter(ProcessHandle::isAlive)
                            .flatMap(handle -> handle.info().commandLine())
                            .filter(line -> line.contains(MAIN_CLASS + " " + config))
                            .isPresent();
            if (ours) {
                process.get().destroyForcibly();
                process.get().onExit().orTimeout(30, TimeUnit.SECONDS).join();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- helpers ----

    /** Waits until the broker answers a metadata request: it has joined its own quorum. */
    private void awaitBroker() {
        withAdmin(
                "asking the broker at " + bootstrapServers + " for its nodes",
                admin -> admin.describeCluster().nodes());
    }

    /** Calls Kafka's admin client and waits for the answer; {@code what} names the call. */
    private void withAdmin(String what, Function<Admin, KafkaFuture<?>> call) {
        try (Admin admin = Admin.create(clientProperties())) {
            call.apply(admin).get(CLIENT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError(what + " failed", e);
        }
    }

    private Properties clientProperties() {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return properties;
    }
}
