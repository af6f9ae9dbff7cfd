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

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * One {@link LocalPostgres} and one {@link LocalConnectWorker} for all the CDC test classes of a
 * test run, the worker on the broker of {@link LocalKafkaAndFlink}, which a class must name first
 * in its extensions. Both start before the first class that uses this extension and stop when the
 * test run ends; the classes use tables, connectors, replication slots and topics of their own.
 */
final class LocalPostgresAndConnect implements BeforeAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(LocalPostgresAndConnect.class);

    private static Resources resources;

    @Override
    public void beforeAll(ExtensionContext context) {
        resources =
                context.getRoot()
                        .getStore(NAMESPACE)
                        .getOrComputeIfAbsent(
                                Resources.class, type -> new Resources(), Resources.class);
    }

    static LocalPostgres postgres() {
        return resources.postgres;
    }

    static LocalConnectWorker connect() {
        return resources.connect;
    }

    /**
     * The JSON of a Debezium PostgreSQL connector named {@code name} that captures the table {@code
     * public.<table>} of the local server into the topic {@code <name>.public.<table>}, through the
     * {@code pgoutput} plugin, with a replication slot and a publication of its own, and exactly
     * once: its records and offsets in one Kafka transaction.
     */
    static String debeziumConnector(String name, String table) {
        return "{\"name\": \""
                + name
                + "\", \"config\": {"
                + "\"connector.class\": \"io.debezium.connector.postgresql.PostgresConnector\","
                + " \"plugin.name\": \"pgoutput\","
                + " \"database.hostname\": \"localhost\","
                + " \"database.port\": \""
                + postgres().port()
                + "\", \"database.user\": \"postgres\","
                + " \"database.dbname\": \"postgres\","
                + " \"topic.prefix\": \""
                + name
                + "\", \"table.include.list\": \"public."
                + table
                + "\", \"slot.name\": \""
                + name.replace('-', '_')
                + "\", \"publication.name\": \""
                + name.replace('-', '_')
                + "\", \"publication.autocreate.mode\": \"filtered\","
                + " \"exactly.once.support\": \"required\"}}";
    }

    /** The server and the worker, stopped by the root store when the test run ends. */
    private static final class Resources implements AutoCloseable {
        private final LocalPostgres postgres;
        private final LocalConnectWorker connect;

        Resources() {
            try {
                postgres = LocalPostgres.start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            try {
                connect = LocalConnectWorker.start(LocalKafkaAndFlink.broker());
            } catch (IOException e) {
                postgres.close();
                throw new UncheckedIOException(e);
            } catch (RuntimeException | Error e) {
                postgres.close();
                throw e;
            }
        }

        @Override
        public void close() {
            try {
                connect.close();
            } finally {
                postgres.close();
            }
        }
    }
}
