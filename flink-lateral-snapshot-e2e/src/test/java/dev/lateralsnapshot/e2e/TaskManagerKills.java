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

import java.time.Duration;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * Kills TaskManagers under a running job, as a machine or a JVM dies, and starts a new one in place
 * of each, as a cluster manager would (docs/reliability.md, "TaskManagers killed"). The waits are
 * those that {@code TaskManagerFailuresIT} found necessary on a loaded machine: the new TaskManager
 * registered, the job restarted since the kill and running without the dead one, its restart
 * counted, and a checkpoint taken after it. The cluster needs {@link #CLUSTER_OPTIONS}.
 */
final class TaskManagerKills {

    /**
     * The options of a cluster whose TaskManagers are killed: it notices a dead one within seconds
     * and restarts the job with a fixed delay, and its metric values refresh every second.
     */
    static final Map<String, String> CLUSTER_OPTIONS =
            Map.of(
                    // Metric values on the REST API refresh every 10 s by default.
                    "metrics.fetcher.update-interval", "1000",
                    // The JobManager fetches metrics from every TaskManager, through the
                    // ResourceManager, and starts no fetch before the last one has ended. A request
                    // to a TaskManager killed before it answered ends only with this timeout, 10
                    // minutes by default: until then numRestarts and the join metrics stay as they
                    // were at the kill.
                    "web.timeout", "20 s",
                    // Notice a dead TaskManager in seconds instead of the default 50.
                    "heartbeat.interval", "1000",
                    "heartbeat.timeout", "5000",
                    "restart-strategy.type", "fixed-delay",
                    "restart-strategy.fixed-delay.attempts", "20",
                    "restart-strategy.fixed-delay.delay", "1 s");

    /** A killed TaskManager is noticed within the heartbeat timeout, the job restarts after it. */
    private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(90);

    private static final Duration CHECKPOINT_TIMEOUT = Duration.ofSeconds(60);

    private final LocalFlinkCluster cluster;

    /** How long a restored source may take to read again what its checkpoint had not seen. */
    private final Duration settleAfterRestart;

    private int kills;

    TaskManagerKills(LocalFlinkCluster cluster, Duration settleAfterRestart) {
        this.cluster = cluster;
        this.settleAfterRestart = settleAfterRestart;
    }

    /** How many TaskManagers this object has killed. */
    int kills() {
        return kills;
    }

    /**
     * The join phase of a job on a {@code VersionedBuildSide}, with three kills: versions 1 to
     * {@code versions} of every key, one at a time, each with a batch of orders and followed by a
     * checkpoint; a TaskManager is killed before version 1 is written, around the time version 3 is
     * read and after version 5 is applied, the three points at which a restored job must read a
     * version, may read it again, or must not lose it.
     */
    void joinPhaseWithKills(
            ClusterJob job,
            int versions,
            IntConsumer writeVersion,
            Runnable writeOrders,
            IntConsumer awaitApplied) {
        for (int version = 1; version <= versions; version++) {
            switch (version) {
                case 1:
                    // Killed before the version is written: the restored job reads it.
                    writeOrders.run();
                    killJoinTaskManager(job);
                    writeVersion.accept(version);
                    awaitApplied.accept(version);
                    break;
                case 3:
                    // Killed around the time the version is read: the restored job reads it
                    // again unless the checkpoint it restores holds it.
                    writeVersion.accept(version);
                    writeOrders.run();
                    killJoinTaskManager(job);
                    break;
                case 5:
                    // Killed after the version is applied, maybe before a checkpoint holds it.
                    writeVersion.accept(version);
                    writeOrders.run();
                    awaitApplied.accept(version);
                    killJoinTaskManager(job);
                    break;
                default:
                    writeVersion.accept(version);
                    writeOrders.run();
                    awaitApplied.accept(version);
            }
            job.awaitCheckpointTriggeredFromNow(CHECKPOINT_TIMEOUT);
        }
    }

    /**
     * Kills (SIGKILL) a TaskManager that runs a join subtask of the job and starts a new one, while
     * the job restarts from its last checkpoint on the TaskManager that is left; returns once the
     * job runs again and has taken a checkpoint.
     *
     * <p>A kill costs one restart or more, so the restarts are counted from the value before this
     * kill, not against the number of kills: an earlier kill that cost two would let a count
     * against the kills pass before the JobManager has noticed this one.
     */
    void killJoinTaskManager(ClusterJob job) {
        long restartsBefore = job.restarts();
        String victim = job.joinTaskManagers().iterator().next();
        long killedAt = System.currentTimeMillis();
        cluster.killTaskManager(victim);
        kills++;
        cluster.startTaskManager();
        job.awaitRestartWithout(victim, killedAt, cluster::taskManagerIds, RECOVERY_TIMEOUT);
        // numRestarts comes from the metric store, which catches up only once its fetch from the
        // dead TaskManager has timed out; waiting for it also keeps the metrics read next from
        // being those of the job before the kill.
        job.await(
                RECOVERY_TIMEOUT,
                "numRestarts above " + restartsBefore + " after TaskManager " + victim + " died",
                job::restarts,
                restarts -> restarts > restartsBefore);
        Wait.sleep(settleAfterRestart);
        job.awaitCheckpointTriggeredFromNow(CHECKPOINT_TIMEOUT);
    }
}
