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

package dev.lateralsnapshot.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code bin/kafka-local.sh create-topic}: creates a topic on the local node with Kafka's admin
 * client, with one replica (the node is alone), the given number of partitions and topic
 * configuration, for example {@code cleanup.policy=compact} for an upsert topic.
 *
 * <p>Arguments: {@code <bootstrap servers> <topic> [<partitions>] [<key>=<value> ...]}.
 */
public final class CreateTopic {

    private CreateTopic() {}

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 2) {
            System.err.println(
                    "Usage: CreateTopic <bootstrap servers> <topic> [<partitions>]"
                            + " [<key>=<value> ...]");
            System.exit(2);
        }
        String topic = args[1];
        int partitions = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        Map<String, String> config = new LinkedHashMap<>();
        for (String option : Arrays.asList(args).subList(Math.min(3, args.length), args.length)) {
            int equals = option.indexOf('=');
            if (equals < 1) {
                System.err.println("Not a <key>=<value> topic configuration: " + option);
                System.exit(2);
            }
            config.put(option.substring(0, equals), option.substring(equals + 1));
        }
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(config)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            System.err.println("Topic " + topic + " was not created: " + cause.getMessage());
            System.exit(1);
        }
        System.out.println(
                "Created topic " + topic + " with " + partitions + " partition(s) " + config);
    }
}
