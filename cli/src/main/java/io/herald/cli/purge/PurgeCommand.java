package io.herald.cli.purge;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.herald.cli.CliDatabase;
import io.herald.cli.ConfigDir;
import io.herald.cli.Herald;
import io.herald.cli.JsonOption;
import io.herald.common.json.Json;
import io.herald.consumer.config.ConsumerConfig;
import io.herald.consumer.metrics.ConsumerMetrics;
import io.herald.runtime.db.DatabaseConfig;
import io.herald.runtime.db.ExpiredRows;
import io.herald.writer.config.WriterConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code herald purge --dry-run | --apply}: what the writer's and the consumer's retention purgers
 * would delete now, per table with the cut-off each uses, and with {@code --apply} the deletion. It
 * runs the processes' own purgers ({@code writer.retention.RetentionPurger}, {@code
 * consumer.retention.RetentionPurger}) with the settings their processes read from {@code
 * writer.properties} and {@code consumer.properties}: the same statements, the same cut-offs, in
 * the same bounded batches, so the command and the processes cannot disagree about what retention
 * means. Safe while the processes run (their purges skip rows another holds).
 */
@Command(
    name = "purge",
    mixinStandardHelpOptions = true,
    description =
        "What retention would delete now (writer outbox and inbox, consumer inbox, finished"
            + " deliveries, consumer outbox), per table with its cut-off; --apply deletes it.")
public final class PurgeCommand implements Callable<Integer> {

  private final Supplier<ConfigDir> configDir;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin JsonOption json;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Mode mode;

  static final class Mode {
    @Option(names = "--dry-run", required = true, description = "Count, delete nothing.")
    boolean dryRun;

    @Option(names = "--apply", required = true, description = "Delete what retention would delete.")
    boolean apply;
  }

  /** What {@code --json} prints. */
  public record Report(boolean applied, List<ExpiredRows> tables, long rows) {}

  public PurgeCommand(Supplier<ConfigDir> configDir) {
    this.configDir = configDir;
  }

  @Override
  public Integer call() throws JsonProcessingException {
    ConfigDir dir = configDir.get();
    WriterConfig writer = dir.writer();
    ConsumerConfig consumer = dir.consumer();
    boolean apply = mode.apply;
    List<ExpiredRows> tables = new ArrayList<>();
    tables.addAll(writer(writer.database(), writer, apply));
    tables.addAll(consumer(consumer.database(), consumer, apply));
    Report report =
        new Report(apply, List.copyOf(tables), tables.stream().mapToLong(ExpiredRows::rows).sum());
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled()) {
      out.println(Json.mapper().writeValueAsString(PurgeOutput.json(report)));
    } else {
      out.print(PurgeOutput.human(report));
      out.flush();
    }
    return Herald.EXIT_OK;
  }

  private static List<ExpiredRows> writer(
      DatabaseConfig database, WriterConfig config, boolean apply) {
    try (io.herald.writer.retention.RetentionPurger purger =
        new io.herald.writer.retention.RetentionPurger(
            CliDatabase.dataSource(database),
            config.retention(),
            Clock.systemUTC(),
            new SimpleMeterRegistry())) {
      return apply ? purger.purgeAll() : purger.expired();
    } catch (SQLException e) {
      throw CliDatabase.failure(
          e, (apply ? "purge" : "count") + " the writer's expired rows", database);
    }
  }

  private static List<ExpiredRows> consumer(
      DatabaseConfig database, ConsumerConfig config, boolean apply) {
    try (io.herald.consumer.retention.RetentionPurger purger =
        new io.herald.consumer.retention.RetentionPurger(
            CliDatabase.dataSource(database),
            config.retention(),
            new ConsumerMetrics(new SimpleMeterRegistry()))) {
      return apply ? purger.purgeAll() : purger.expired();
    } catch (SQLException e) {
      throw CliDatabase.failure(
          e, (apply ? "purge" : "count") + " the consumer's expired rows", database);
    }
  }
}
