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

package dev.lateralsnapshot.runtime.operators.join.snapshot.broadcast;

import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildKeyTtl;
import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinStateContext;

import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;
import org.apache.flink.table.data.RowData;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The state TTL of one subtask's broadcast build side: per build key, the time of the last access
 * to it in this subtask, by a probe row that found build rows or by a build change (an access is
 * kept as its time plus a tenth of the TTL when it is later than the time kept, so a key is evicted
 * between the TTL and 1.1 times the TTL after its last access, never earlier; see {@link
 * BuildKeyTtl#ACCESS_PRECISION_DIVISOR}).
 *
 * <p>The times are not part of any snapshot: a restore starts every key's clock anew, so that a
 * stop longer than the TTL does not evict the whole build side at the restore. Expiries wait in a
 * queue ordered by time, with one processing-time timer for the earliest; an expiry that finds a
 * later access goes back into the queue at the time that access expires.
 */
final class BroadcastStateTtl implements BuildKeyTtl {

    /** The time kept for one key; a new clock of the same key is a new instance. */
    private static final class Clock {
        long kept;

        Clock(long kept) {
            this.kept = kept;
        }
    }

    private static final class Expiry {
        final long time;
        final RowData key;
        final Clock clock;

        Expiry(long time, RowData key, Clock clock) {
            this.time = time;
            this.key = key;
            this.clock = clock;
        }
    }

    private final long ttl;
    private final long accessPrecision;
    private final ProcessingTimeService processingTime;
    private final BroadcastKeys keys;
    private final BroadcastBuildSideState<?> buildSide;
    private final JoinStateContext context;
    private final Map<RowData, Clock> clocks = new HashMap<>();
    private final PriorityQueue<Expiry> expiries =
            new PriorityQueue<>(Comparator.comparingLong(expiry -> expiry.time));

    /** The time of the timer set for the earliest expiry; Long.MAX_VALUE when none is set. */
    private long timerAt = Long.MAX_VALUE;

    BroadcastStateTtl(
            long ttl,
            BroadcastKeys keys,
            BroadcastBuildSideState<?> buildSide,
            JoinStateContext context) {
        this.ttl = ttl;
        this.accessPrecision = ttl / BuildKeyTtl.ACCESS_PRECISION_DIVISOR;
        this.processingTime = context.processingTimeService();
        this.keys = keys;
        this.buildSide = buildSide;
        this.context = context;
    }

    @Override
    public boolean isRunning() {
        return clocks.containsKey(keys.currentKey());
    }

    @Override
    public void start() {
        start(keys.currentKey());
    }

    @Override
    public void startAll() throws Exception {
        for (RowData key : buildSide.keys()) {
            start(key);
        }
    }

    private void start(RowData key) {
        long now = processingTime.getCurrentProcessingTime();
        Clock clock = new Clock(now);
        clocks.put(key, clock);
        enqueue(new Expiry(now + ttl, key, clock));
    }

    @Override
    public void touch() {
        Clock clock = clocks.get(keys.currentKey());
        if (clock == null) {
            return;
        }
        long now = processingTime.getCurrentProcessingTime();
        if (now > clock.kept) {
            clock.kept = now + accessPrecision;
        }
    }

    private void enqueue(Expiry expiry) {
        expiries.add(expiry);
        if (expiry.time < timerAt) {
            timerAt = expiry.time;
            processingTime.registerTimer(expiry.time, this::onTimer);
        }
    }

    private void onTimer(long now) throws Exception {
        if (now < timerAt) {
            // An earlier timer was set after this one, and has done its work.
            return;
        }
        timerAt = Long.MAX_VALUE;
        while (!expiries.isEmpty() && expiries.peek().time <= now) {
            Expiry expiry = expiries.poll();
            if (clocks.get(expiry.key) != expiry.clock) {
                // The clock stopped, or was started anew with its own expiry.
                continue;
            }
            long expiresAt = expiry.clock.kept + ttl;
            if (expiresAt > now) {
                expiries.add(new Expiry(expiresAt, expiry.key, expiry.clock));
            } else {
                clocks.remove(expiry.key);
                keys.enter(expiry.key);
                context.evictCurrentKey();
            }
        }
        if (!expiries.isEmpty()) {
            timerAt = expiries.peek().time;
            processingTime.registerTimer(timerAt, this::onTimer);
        }
    }
}
