package io.herald.bench.suite;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The PNG plots of BENCHMARKS.md (JFreeChart, headless). A machine without fonts cannot draw text;
 * a plot that cannot be drawn is reported and skipped, never the figures.
 */
public final class Charts {

  private static final int WIDTH = 900;
  private static final int HEIGHT = 500;

  /**
   * Lines a bar's label may wrap over: B1's and B2's labels ("Connect, relay's JVM options, 512 MiB
   * heap") are cut to "Connect, relay's JVM option..." on one.
   */
  static final int LABEL_LINES = 3;

  /**
   * The image width a bar chart gives each category beyond {@link #WIDTH}'s worth, so a label of
   * about 45 characters still fits on {@link #LABEL_LINES} lines however many bars there are:
   * JFreeChart shares the plot's width out among them.
   */
  static final int CATEGORY_WIDTH = 160;

  /**
   * A label's width as a share of its bar's: over the bar and into the gaps beside it, which with
   * JFreeChart's default margins are at least 2/7 of a bar, so neighbours' labels never touch.
   */
  static final float LABEL_WIDTH_RATIO = 1.2f;

  private Charts() {}

  /** A point of a line: x and y. */
  public record Point(double x, double y) {}

  /** Lines of {@code series} (name to points) against a shared x axis; empty if not drawn. */
  public static Optional<Path> lines(
      Path file, String title, String xLabel, String yLabel, Map<String, List<Point>> series) {
    XYSeriesCollection dataset = new XYSeriesCollection();
    series.forEach(
        (name, points) -> {
          XYSeries line = new XYSeries(name);
          points.forEach(p -> line.add(p.x(), p.y()));
          dataset.addSeries(line);
        });
    return save(
        file,
        () ->
            ChartFactory.createXYLineChart(
                title, xLabel, yLabel, dataset, PlotOrientation.VERTICAL, true, false, false),
        WIDTH,
        HEIGHT);
  }

  /** Bars of {@code values} (category to value, in order); empty if not drawn. */
  public static Optional<Path> bars(
      Path file, String title, String valueLabel, Map<String, Double> values) {
    return save(file, () -> barChart(title, valueLabel, values), barsWidth(values.size()), HEIGHT);
  }

  /** The chart {@link #bars} draws. */
  static JFreeChart barChart(String title, String valueLabel, Map<String, Double> values) {
    DefaultCategoryDataset dataset = new DefaultCategoryDataset();
    values.forEach((category, value) -> dataset.addValue(value, valueLabel, category));
    JFreeChart chart =
        ChartFactory.createBarChart(
            title, "", valueLabel, dataset, PlotOrientation.VERTICAL, false, false, false);
    CategoryAxis categories = chart.getCategoryPlot().getDomainAxis();
    // Wrapped at word breaks, not cut: the label is all that tells the bars apart.
    categories.setMaximumCategoryLabelLines(LABEL_LINES);
    categories.setMaximumCategoryLabelWidthRatio(LABEL_WIDTH_RATIO);
    return chart;
  }

  /** The image width of a bar chart of {@code categories} bars. */
  static int barsWidth(int categories) {
    return Math.max(WIDTH, categories * CATEGORY_WIDTH);
  }

  private interface ChartMaker {
    JFreeChart make();
  }

  private static Optional<Path> save(Path file, ChartMaker maker, int width, int height) {
    try {
      JFreeChart chart = maker.make();
      chart.setBackgroundPaint(Color.WHITE);
      ChartUtils.saveChartAsPNG(file.toFile(), chart, width, height);
      return Optional.of(file);
    } catch (IOException | RuntimeException | InternalError | LinkageError e) {
      // A JDK without fonts or AWT libraries fails in AWT's static initialisation.
      System.err.printf("Plot %s not drawn (%s); the figures stand without it%n", file, e);
      return Optional.empty();
    }
  }
}
