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

package dev.lateralsnapshot.benchmark.enrichment;

import com.sun.management.GarbageCollectionNotificationInfo;

import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryUsage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Peak heap of the JVM during a run: the largest heap occupancy right after a garbage collection
 * (live data plus what the collector left, the figure that tells whether state fits) and the
 * largest sampled occupancy (which also counts garbage not yet collected).
 */
final class HeapWatch {

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final AtomicLong peakAfterGc = new AtomicLong();
    private final AtomicLong peakUsed = new AtomicLong();

    private final java.util.Set<String> heapPools = new java.util.HashSet<>();

    HeapWatch() {
        for (java.lang.management.MemoryPoolMXBean pool :
                ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == java.lang.management.MemoryType.HEAP) {
                heapPools.add(pool.getName());
            }
        }
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter) {
                ((NotificationEmitter) gc)
                        .addNotificationListener(
                                (notification, handback) -> {
                                    if (!GarbageCollectionNotificationInfo
                                            .GARBAGE_COLLECTION_NOTIFICATION
                                            .equals(notification.getType())) {
                                        return;
                                    }
                                    GarbageCollectionNotificationInfo info =
                                            GarbageCollectionNotificationInfo.from(
                                                    (CompositeData) notification.getUserData());
                                    long used = 0;
                                    for (java.util.Map.Entry<String, MemoryUsage> pool :
                                            info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                                        if (heapPools.contains(pool.getKey())) {
                                            used += pool.getValue().getUsed();
                                        }
                                    }
                                    peakAfterGc.accumulateAndGet(used, Math::max);
                                },
                                null,
                                null);
            }
        }
    }

    void reset() {
        peakAfterGc.set(0);
        peakUsed.set(0);
    }

    void sample() {
        peakUsed.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
    }

    long peakAfterGc() {
        return peakAfterGc.get();
    }

    long peakUsed() {
        return peakUsed.get();
    }
}
