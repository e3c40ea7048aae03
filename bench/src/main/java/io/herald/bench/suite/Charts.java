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
                title, xLabel, yLabel, dataset, PlotOrientation.VERTICAL, true, false, false));
  }

  /** Bars of {@code values} (category to value, in order); empty if not drawn. */
  public static Optional<Path> bars(
      Path file, String title, String valueLabel, Map<String, Double> values) {
    DefaultCategoryDataset dataset = new DefaultCategoryDataset();
    values.forEach((category, value) -> dataset.addValue(value, valueLabel, category));
    return save(
        file,
        () ->
            ChartFactory.createBarChart(
                title, "", valueLabel, dataset, PlotOrientation.VERTICAL, false, false, false));
  }

  private interface ChartMaker {
    JFreeChart make();
  }

  private static Optional<Path> save(Path file, ChartMaker maker) {
    try {
      JFreeChart chart = maker.make();
      chart.setBackgroundPaint(Color.WHITE);
      ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
      return Optional.of(file);
    } catch (IOException | RuntimeException | InternalError | LinkageError e) {
      // A JDK without fonts or AWT libraries fails in AWT's static initialisation.
      System.err.printf("Plot %s not drawn (%s); the figures stand without it%n", file, e);
      return Optional.empty();
    }
  }
}
