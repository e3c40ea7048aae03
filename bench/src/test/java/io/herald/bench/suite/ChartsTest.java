package io.herald.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartRenderingInfo;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.AxisState;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryTick;
import org.jfree.chart.text.TextBlock;
import org.jfree.chart.text.TextLine;
import org.jfree.chart.ui.RectangleEdge;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChartsTest {

  /** B1's bars: six, each a reader and a transaction size. */
  private static final List<String> B1 =
      List.of(
          "relay, 100 rows/tx",
          "bare reader, 100 rows/tx",
          "pg_recvlogical, 100 rows/tx",
          "relay, 1 rows/tx",
          "bare reader, 1 rows/tx",
          "pg_recvlogical, 1 rows/tx");

  /** B2's bars: three, one of them the longest label of the suite. */
  private static final List<String> B2 =
      List.of("relay", "Connect, stock JVM", "Connect, relay's JVM options, 512 MiB heap");

  @TempDir Path dir;

  @BeforeAll
  static void headless() {
    System.setProperty("java.awt.headless", "true"); // as BenchMain runs
  }

  @Test
  void shouldDrawABarChartToItsFile() {
    Path file = dir.resolve("b2-drain.png");

    assertThat(Charts.bars(file, "B2: backlog drain", "events/s", values(B2))).contains(file);
    assertThat(file).isNotEmptyFile();
  }

  @Test
  void shouldWrapCategoryLabelsOverUpToThreeLinesAcrossTheirGaps() {
    CategoryAxis axis =
        Charts.barChart("B1", "events/s", values(B1)).getCategoryPlot().getDomainAxis();

    assertThat(axis.getMaximumCategoryLabelLines()).isEqualTo(Charts.LABEL_LINES).isEqualTo(3);
    assertThat(axis.getMaximumCategoryLabelWidthRatio()).isGreaterThan(1f);
  }

  @Test
  void shouldWidenABarChartWithManyBarsAndNotNarrowOneWithFew() {
    assertThat(Charts.barsWidth(3)).isEqualTo(900);
    assertThat(Charts.barsWidth(8)).isEqualTo(8 * Charts.CATEGORY_WIDTH).isGreaterThan(900);
  }

  @Test
  void shouldKeepEveryWordOfB1sAndB2sLabelsAtTheSizeTheyAreDrawn() {
    for (List<String> labels : List.of(B1, B2)) {
      JFreeChart chart = Charts.barChart("bars", "events/s", values(labels));

      assertThat(drawnLabels(chart, Charts.barsWidth(labels.size()), 500))
          .containsExactlyElementsOf(labels);
    }
  }

  @Test
  void shouldWriteAPngOfTheWidthItsBarsNeed() throws Exception {
    Map<String, Double> eight = new LinkedHashMap<>();
    for (int i = 1; i <= 8; i++) {
      eight.put("instance " + i + ", a label of some length", (double) i);
    }
    Path file = dir.resolve("eight.png");

    assertThat(Charts.bars(file, "eight bars", "deliveries/s", eight)).contains(file);
    assertThat(ImageIO.read(file.toFile()).getWidth()).isEqualTo(Charts.barsWidth(8));
  }

  private static Map<String, Double> values(List<String> labels) {
    Map<String, Double> values = new LinkedHashMap<>();
    labels.forEach(label -> values.put(label, 1_000.0 + values.size()));
    return values;
  }

  /**
   * Each category label as the axis lays it out when the chart is drawn at {@code width} x {@code
   * height}, its lines joined by spaces: a cut label ends in "...", a word broken within has a
   * space inside.
   */
  private static List<String> drawnLabels(JFreeChart chart, int width, int height) {
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g2 = image.createGraphics();
    try {
      ChartRenderingInfo info = new ChartRenderingInfo();
      chart.draw(g2, new Rectangle2D.Double(0, 0, width, height), info);
      Rectangle2D dataArea = info.getPlotInfo().getDataArea();
      CategoryAxis axis = chart.getCategoryPlot().getDomainAxis();
      List<String> labels = new ArrayList<>();
      for (Object tick : axis.refreshTicks(g2, new AxisState(), dataArea, RectangleEdge.BOTTOM)) {
        TextBlock block = ((CategoryTick) tick).getLabel();
        List<String> lines = new ArrayList<>();
        for (Object line : block.getLines()) { // a raw List in JFreeChart 1.5
          // JFreeChart's wrapping makes one fragment a line.
          lines.add(((TextLine) line).getFirstTextFragment().getText().trim());
        }
        labels.add(String.join(" ", lines));
      }
      return labels;
    } finally {
      g2.dispose();
    }
  }
}
