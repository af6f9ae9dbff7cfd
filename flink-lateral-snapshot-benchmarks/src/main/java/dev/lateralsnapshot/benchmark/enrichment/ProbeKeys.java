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

import java.util.SplittableRandom;

/**
 * The probe keys of one data scenario, generated once from a fixed seed and shared by every
 * contender, so that every join sees exactly the same probe stream.
 *
 * <p>Probe row {@code seq} has the key {@code keys[seq % keys.length]}. Build keys are {@code 0 ..
 * buildKeys - 1}; keys from {@code buildKeys} up to {@code buildKeys * 10 / 9} exist only on the
 * probe side, so about 90% of probe rows find a build row.
 *
 * <ul>
 *   <li>{@link Distribution#UNIFORM}: keys uniform over {@code 0 .. buildKeys * 10 / 9 - 1}.
 *   <li>{@link Distribution#ZIPF}: 90% of rows draw a build key from a Zipf distribution (exponent
 *       0.99) over the build keys, with the ranks scattered over the key space by a fixed
 *       permutation so that hot keys do not cluster on one subtask; the other 10% are uniform over
 *       the keys that miss.
 *   <li>{@link Distribution#ZIPF12}: the same with the exponent 1.2, the skew at which the
 *       broadcast build side is compared with the hashed one.
 * </ul>
 */
final class ProbeKeys {

    enum Distribution {
        UNIFORM(0),
        ZIPF(0.99),
        ZIPF12(1.2);

        /** The Zipf exponent s; 0 for uniform keys. */
        final double exponent;

        Distribution(double exponent) {
            this.exponent = exponent;
        }
    }

    /** Length of the generated key sequence; the probe stream repeats it. */
    static final int SEQUENCE_LENGTH = 10_000_000;

    private static final long SEED = 0x5EED_1A7E_2A15L;

    final Distribution distribution;
    final int buildKeys;
    final int[] keys;
    final double hitRate;

    private ProbeKeys(Distribution distribution, int buildKeys, int[] keys) {
        this.distribution = distribution;
        this.buildKeys = buildKeys;
        this.keys = keys;
        long hits = 0;
        for (int k : keys) {
            if (k < buildKeys) {
                hits++;
            }
        }
        this.hitRate = (double) hits / keys.length;
    }

    static ProbeKeys generate(Distribution distribution, int buildKeys) {
        SplittableRandom random = new SplittableRandom(SEED ^ buildKeys ^ distribution.ordinal());
        int allKeys = (int) ((long) buildKeys * 10 / 9);
        int missingKeys = allKeys - buildKeys;
        int[] keys = new int[SEQUENCE_LENGTH];
        if (distribution == Distribution.UNIFORM) {
            for (int i = 0; i < keys.length; i++) {
                keys[i] = random.nextInt(allKeys);
            }
        } else {
            double[] cdf = zipfCdf(buildKeys, distribution.exponent);
            long multiplier = scatterMultiplier(buildKeys);
            for (int i = 0; i < keys.length; i++) {
                if (random.nextInt(10) == 0) {
                    keys[i] = buildKeys + random.nextInt(missingKeys);
                } else {
                    int rank = search(cdf, random.nextDouble());
                    keys[i] = (int) ((rank * multiplier) % buildKeys);
                }
            }
        }
        return new ProbeKeys(distribution, buildKeys, keys);
    }

    /** Cumulative probabilities of ranks 0 .. n - 1, rank r having weight 1 / (r + 1)^s. */
    private static double[] zipfCdf(int n, double exponent) {
        double[] cdf = new double[n];
        double sum = 0;
        for (int r = 0; r < n; r++) {
            sum += 1.0 / Math.pow(r + 1, exponent);
            cdf[r] = sum;
        }
        for (int r = 0; r < n; r++) {
            cdf[r] /= sum;
        }
        return cdf;
    }

    private static int search(double[] cdf, double u) {
        int low = 0;
        int high = cdf.length - 1;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (cdf[mid] < u) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /** A multiplier coprime with n: rank -> rank * m mod n is then a permutation. */
    private static long scatterMultiplier(int n) {
        long m = 1_000_003L; // a prime
        while (gcd(m, n) != 1) {
            m += 2;
        }
        return m;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /** Share of probe rows that fall on the most frequent key. */
    double hottestKeyShare() {
        int[] counts = new int[(int) ((long) buildKeys * 10 / 9) + 1];
        int max = 0;
        for (int k : keys) {
            max = Math.max(max, ++counts[k]);
        }
        return (double) max / keys.length;
    }

    @Override
    public String toString() {
        return distribution.name().toLowerCase() + " over " + buildKeys + " build keys";
    }
}
