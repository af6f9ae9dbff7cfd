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

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The PostgreSQL server of the CDC tests, as {@code bin/postgres-local.sh} starts it: the machine's
 * server binaries in a directory of the build, on the port it was given, with logical decoding on,
 * as a user other than root (the server refuses root), and gone once stopped.
 */
class LocalPostgresIT {

    @Test
    void startsAServerForDebeziumAndStopsItByItsPid() throws Exception {
        long pid;
        try (LocalPostgres postgres = LocalPostgres.start()) {
            assertThat(postgres.query("SHOW wal_level")).isEqualTo("logical");
            assertThat(postgres.query("SHOW port")).isEqualTo(String.valueOf(postgres.port()));
            assertThat(postgres.query("SHOW data_directory"))
                    .isEqualTo(postgres.directory().resolve("data").toString());
            postgres.psql("CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1), (2);");
            assertThat(postgres.query("SELECT count(*) FROM t")).isEqualTo("2");

            pid =
                    Long.parseLong(
                            Files.readAllLines(
                                            postgres.directory().resolve("data/postmaster.pid"),
                                            StandardCharsets.UTF_8)
                                    .get(0)
                                    .trim());
            ProcessHandle server = ProcessHandle.of(pid).orElseThrow();
            assertThat(server.info().user())
                    .hasValueSatisfying(u -> assertThat(u).isNotEqualTo("root"));
            assertThat(server.info().commandLine())
                    .hasValueSatisfying(line -> assertThat(line).contains("postgres"));
        }
        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive))
                .as("the server after close()")
                .isEmpty();
    }
}
