package io.herald.cli.audit;

import io.herald.cli.ConfigDir;
import io.herald.cli.Herald;
import io.herald.cli.JsonOption;
import io.herald.common.event.Topics;
import io.herald.common.json.Json;
import io.herald.config.Durations;
import io.herald.consumer.config.ConsumerConfig;
import io.herald.runtime.inbox.InboxSettings;
import io.herald.writer.config.WriterConfig;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code herald audit}: proves, or disproves, that every intent the writer accepted reached its
 * destination once. Exit 0 only when nothing is violated; 1 with the violations named.
 */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    description = {
      "Cross-check writer jobs, their events in Kafka, the consumer's inbox and deliveries, the"
          + " status events, the writer's status view and (with --remote-articles) the"
          + " destinations' own articles.",
      "Counts, overall and per tenant: lost (a job without its event in Kafka, an event the"
          + " consumer read without a delivery), duplicate remote articles, conflicts, stuck"
          + " (not final for longer than --stuck-after), uncertain and needs-reconciliation items"
          + " with their ages, and the status view's lag. The last line sums it up.",
      "Memory stays bounded: topics are read record by record into temporary tables of the"
          + " consumer's database, and both databases through cursors."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:nothing violated",
      "1:a violation was found (named in the output)",
      "2:bad usage or configuration",
      "3:a database, Kafka or a listing could not be reached"
    })
public final class AuditCommand implements Callable<Integer> {

  private final Supplier<ConfigDir> configDir;
  private final HttpClient http;
  private final Clock clock;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin JsonOption json;

  @Option(
      names = "--since",
      paramLabel = "T",
      description =
          "Only jobs created at or after T: an ISO-8601 instant (2026-12-01T00:00:00Z) or a"
              + " duration back from now (24h, 7d). Default: everything.")
  String since;

  @Option(names = "--tenant", paramLabel = "X", description = "Only this tenant's jobs.")
  String tenant;

  @Option(
      names = "--stuck-after",
      paramLabel = "D",
      defaultValue = "10m",
      description =
          "A delivery not final for longer than D is stuck, a job older than D without its event"
              + " is lost, a status view behind for longer than D is stale. Default:"
              + " ${DEFAULT-VALUE}.")
  String stuckAfter;

  @Option(
      names = "--remote-articles",
      paramLabel = "DEST=URL",
      description =
          "A listing of destination DEST's articles (JSON: an array, or an object with an"
              + " 'articles' array, of objects with 'id' and 'externalReference'), to count"
              + " duplicate and missing remote articles. Repeatable; one URL may serve several"
              + " destinations.")
  Map<String, URI> remoteArticles = new LinkedHashMap<>();

  @Option(
      names = "--timeout",
      paramLabel = "D",
      defaultValue = "30s",
      description =
          "How long Kafka or a listing may make no progress before the audit gives up (exit 3)."
              + " Default: ${DEFAULT-VALUE}.")
  String timeout;

  public AuditCommand(Supplier<ConfigDir> configDir, HttpClient http, Clock clock) {
    this.configDir = configDir;
    this.http = http;
    this.clock = clock;
  }

  @Override
  public Integer call() throws Exception {
    Audit.Request request =
        new Audit.Request(
            since(),
            tenant,
            duration("--stuck-after", stuckAfter),
            Map.copyOf(remoteArticles),
            duration("--timeout", timeout));
    ConfigDir dir = configDir.get();
    AuditReport report =
        new Audit(sources(dir.writer(), dir.consumer()), request, clock, http).run();
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled()) {
      out.println(Json.mapper().writeValueAsString(report));
    } else {
      out.print(report.human());
    }
    out.flush();
    return report.violated() ? Herald.EXIT_VIOLATION : Herald.EXIT_OK;
  }

  static Audit.Sources sources(WriterConfig writer, ConsumerConfig consumer) {
    InboxSettings intake = consumer.inbox();
    // The writer's status view reads the status topic; without it, the default name.
    String statusTopic = writer.status().map(InboxSettings::topic).orElse(Topics.DELIVERY_EVENTS);
    return new Audit.Sources(
        writer.database(),
        consumer.database(),
        intake.bootstrapServers(),
        intake.consumerOverrides(),
        intake.topic(),
        intake.groupId(),
        consumer.deadLetters().topic(),
        statusTopic,
        writer.status().isPresent(),
        consumer.retention().deliveryRetention());
  }

  private Instant since() {
    if (since == null) {
      return null;
    }
    try {
      return Instant.parse(since);
    } catch (DateTimeParseException notAnInstant) {
      try {
        return clock.instant().minus(Durations.parse(since));
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "--since must be an ISO-8601 instant or a duration like 24h, was '" + since + "'");
      }
    }
  }

  private Duration duration(String option, String text) {
    try {
      Duration value = Durations.parse(text);
      if (value.isZero() && option.equals("--timeout")) {
        throw new IllegalArgumentException("zero");
      }
      return value;
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          option + " must be a duration like 30s, 10m or 1h, was '" + text + "'");
    }
  }
}
