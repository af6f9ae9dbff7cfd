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

import dev.lateralsnapshot.benchmark.enrichment.RunSpec.Backend;

import javax.imageio.ImageIO;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.Rectangle;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleFunction;

/** The PNG of docs/benchmarks.md: plain java.awt, four panels of grouped bars on log scales. */
final class Chart {

    private static final Color[] COLORS = {
        new Color(0x4C72B0), new Color(0xDD8452), new Color(0x55A868), new Color(0xC44E52)
    };

    private Chart() {}

    static void write(Path file, Cells a, Cells d, Cells b, Cells c) throws IOException {
        System.setProperty("java.awt.headless", "true");
        int width = 1800;
        int height = 1200;
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(
                RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);

        List<String> backends = List.of("heap", "RocksDB");
        if (!a.isEmpty()) {
            List<Contender> cs = a.contenders();
            double[][] v = new double[2][cs.size()];
            for (int i = 0; i < cs.size(); i++) {
                v[0][i] = a.median(cs.get(i), Backend.HEAP, r -> r.rate);
                v[1][i] = a.median(cs.get(i), Backend.ROCKSDB, r -> r.rate);
            }
            bars(
                    g,
                    new Rectangle(0, 0, width / 2, height / 2),
                    "Throughput, uniform keys, 100k build keys (probe rows/s, median)",
                    labels(cs),
                    backends,
                    v,
                    Format::rows);
        }
        if (!d.isEmpty()) {
            List<Contender> cs = d.contenders();
            double[][] v = new double[2][cs.size()];
            for (int i = 0; i < cs.size(); i++) {
                v[0][i] = d.median(cs.get(i), Backend.HEAP, r -> r.p99) / 1000;
                v[1][i] = d.median(cs.get(i), Backend.ROCKSDB, r -> r.p99) / 1000;
            }
            bars(
                    g,
                    new Rectangle(width / 2, 0, width / 2, height / 2),
                    "p99 end-to-end latency at a fixed rate (ms, median; lower is better)",
                    labels(cs),
                    backends,
                    v,
                    Chart::latency);
        }
        List<String> scenarios = new ArrayList<>();
        List<Cells> cells = new ArrayList<>();
        for (Object[] s :
                new Object[][] {
                    {a, "uniform, 100k keys"}, {b, "Zipf, 100k keys"}, {c, "uniform, 1M keys"}
                }) {
            if (!((Cells) s[0]).isEmpty()) {
                cells.add((Cells) s[0]);
                scenarios.add((String) s[1]);
            }
        }
        if (cells.size() > 1) {
            List<Contender> cs = new ArrayList<>(cells.get(cells.size() - 1).contenders());
            for (int panel = 0; panel < 2; panel++) {
                Backend backend = panel == 0 ? Backend.HEAP : Backend.ROCKSDB;
                double[][] v = new double[cells.size()][cs.size()];
                for (int s = 0; s < cells.size(); s++) {
                    for (int i = 0; i < cs.size(); i++) {
                        Cells cell = cells.get(s);
                        v[s][i] =
                                cell.heapStandIn(cs.get(i), backend)
                                        ? Double.NaN
                                        : cell.median(cs.get(i), backend, r -> r.rate);
                    }
                }
                bars(
                        g,
                        new Rectangle(panel * width / 2, height / 2, width / 2, height / 2),
                        "Throughput by data set, " + backend.label + " (probe rows/s, median)",
                        labels(cs),
                        scenarios,
                        v,
                        Format::rows);
            }
        }
        g.dispose();
        ImageIO.write(image, "png", file.toFile());
    }

    private static String latency(double ms) {
        if (ms < 0.1) {
            return String.format(java.util.Locale.ROOT, "%.2f", ms);
        }
        if (ms < 10) {
            return String.format(java.util.Locale.ROOT, "%.1f", ms);
        }
        return String.format(java.util.Locale.ROOT, "%.0f", ms);
    }

    private static List<String> labels(List<Contender> contenders) {
        List<String> labels = new ArrayList<>();
        for (Contender c : contenders) {
            labels.add(c.label);
        }
        return labels;
    }

    /** Grouped bars on a log scale; NaN values are left out. */
    private static void bars(
            Graphics2D g,
            Rectangle area,
            String title,
            List<String> categories,
            List<String> series,
            double[][] values,
            DoubleFunction<String> format) {
        double min = Double.MAX_VALUE;
        double max = 0;
        for (double[] row : values) {
            for (double x : row) {
                if (!Double.isNaN(x) && x > 0) {
                    min = Math.min(min, x);
                    max = Math.max(max, x);
                }
            }
        }
        if (max == 0) {
            return;
        }
        double lo = Math.pow(10, Math.floor(Math.log10(min)));
        double hi = Math.pow(10, Math.ceil(Math.log10(max * 1.5)));
        int left = area.x + 80;
        int right = area.x + area.width - 20;
        int top = area.y + 60;
        int bottom = area.y + area.height - 90;

        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 17));
        g.drawString(title, area.x + 20, area.y + 30);

        // grid and axis labels
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        for (double tick = lo; tick <= hi * 1.0001; tick *= 10) {
            int y = y(tick, lo, hi, top, bottom);
            g.setColor(new Color(0xDDDDDD));
            g.drawLine(left, y, right, y);
            g.setColor(Color.DARK_GRAY);
            String label = format.apply(tick);
            g.drawString(label, left - 8 - g.getFontMetrics().stringWidth(label), y + 5);
        }
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1.2f));
        g.drawLine(left, bottom, right, bottom);
        g.drawLine(left, top, left, bottom);

        int groups = categories.size();
        double groupWidth = (right - left) / (double) groups;
        double barWidth = groupWidth * 0.8 / series.size();
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        FontMetrics fm = g.getFontMetrics();
        for (int i = 0; i < groups; i++) {
            double gx = left + i * groupWidth + groupWidth * 0.1;
            for (int s = 0; s < series.size(); s++) {
                double x = values[s][i];
                if (Double.isNaN(x) || x <= 0) {
                    continue;
                }
                int bx = (int) (gx + s * barWidth);
                int by = y(x, lo, hi, top, bottom);
                g.setColor(COLORS[s % COLORS.length]);
                g.fillRect(bx, by, (int) Math.max(1, barWidth - 2), bottom - by);
                g.setColor(Color.BLACK);
                String label = format.apply(x);
                int lw = fm.stringWidth(label);
                g.drawString(label, (int) (bx + (barWidth - 2 - lw) / 2), by - 4);
            }
            // category label, wrapped on spaces into two lines
            String text = categories.get(i);
            String[] words = text.split(" ");
            String first = words.length > 1 ? words[0] + " " + words[1] : text;
            String rest = words.length > 2 ? text.substring(first.length()).trim() : "";
            int cx = (int) (left + i * groupWidth + groupWidth / 2);
            g.drawString(first, cx - fm.stringWidth(first) / 2, bottom + 18);
            if (!rest.isEmpty()) {
                g.drawString(rest, cx - fm.stringWidth(rest) / 2, bottom + 34);
            }
        }
        // legend
        int lx = left;
        int ly = bottom + 60;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        for (int s = 0; s < series.size(); s++) {
            g.setColor(COLORS[s % COLORS.length]);
            g.fillRect(lx, ly - 11, 14, 14);
            g.setColor(Color.BLACK);
            g.drawString(series.get(s), lx + 20, ly + 1);
            lx += 40 + g.getFontMetrics().stringWidth(series.get(s));
        }
    }

    private static int y(double value, double lo, double hi, int top, int bottom) {
        double f = (Math.log10(value) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo));
        return (int) Math.round(bottom - f * (bottom - top));
    }
}
