package io.herald.cli.monitor;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.herald.cli.CliFailure;
import io.herald.cli.ConfigDir;
import io.herald.cli.DurationOption;
import io.herald.cli.Herald;
import io.herald.cli.JsonOption;
import io.herald.cli.deliveries.DeliveriesCommand;
import io.herald.cli.deliveries.OperatorApi;
import io.herald.cli.kafka.KafkaClients;
import io.herald.common.event.Topics;
import io.herald.common.json.Json;
import io.herald.config.ConfigException;
import io.herald.consumer.config.ConsumerConfig;
import io.herald.relay.config.RelayConfig;
import io.herald.runtime.ops.OpsEndpoint;
import io.herald.writer.config.WriterConfig;
import java.io.Console;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code herald monitor}: a live view of the pipeline, refreshed in place every {@code --interval}
 * on a terminal (plain ANSI escapes, no curses), as appended snapshots elsewhere or with {@code
 * --no-ansi}; {@code --once} prints one snapshot. It reads the three processes' {@code /metrics}
 * (and the relay's {@code /health}) at the ops host and port of their property files, the oldest
 * uncertain deliveries through the consumer's operator API when a token is configured, and Kafka's
 * offsets. A source that does not answer shows as "unreachable"; the view never fails for one.
 */
@Command(
    name = "monitor",
    mixinStandardHelpOptions = true,
    description = {
      "Live view: rates in and out, deliveries by state, uncertain and needs-reconciliation items"
          + " with the oldest age, DLQ arrivals, relay state, slot lag, last heartbeat age and"
          + " consumer lag. Refreshes in place on a terminal; Ctrl-C stops it.",
      "Rates come from two successive samples; --once takes two samples --interval apart.",
      "A source that cannot be reached shows as 'unreachable'."
    },
    exitCodeListHeading = "%nExit codes (with --once or --samples):%n",
    exitCodeList = {
      "0:at least one source answered",
      "2:bad usage or configuration",
      "3:no source (no process, no Kafka) could be reached"
    })
public final class MonitorCommand implements Callable<Integer> {

  private final Supplier<ConfigDir> configDir;
  private final Supplier<Duration> kafkaTimeout;
  private final HttpClient http;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin JsonOption json;

  @Mixin DeliveriesCommand.ApiOptions apiOptions;

  @Option(
      names = "--once",
      description = "Print one snapshot and exit (0, or 3 when nothing could be reached).")
  boolean once;

  @Option(
      names = "--interval",
      paramLabel = "D",
      defaultValue = "2s",
      converter = DurationOption.class,
      description = "Time between samples (500ms, 2s, 1m). Default: ${DEFAULT-VALUE}.")
  Duration interval;

  @Option(
      names = "--samples",
      paramLabel = "N",
      description = "Stop after N snapshots (default: until interrupted; --once is one).")
  Integer samples;

  @Option(
      names = "--no-ansi",
      description =
          "Append plain snapshots instead of refreshing in place (the default off a"
              + " terminal).")
  boolean noAnsi;

  /**
   * @param kafkaTimeout {@code herald --kafka-timeout}: how long one Kafka call of a sample may
   *     take
   */
  public MonitorCommand(
      Supplier<ConfigDir> configDir, Supplier<Duration> kafkaTimeout, HttpClient http) {
    this.configDir = configDir;
    this.kafkaTimeout = kafkaTimeout;
    this.http = http;
  }

  @Override
  public Integer call() throws JsonProcessingException, InterruptedException {
    if (interval.isZero() || interval.isNegative()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--interval must be positive, was " + interval);
    }
    if (samples != null && samples < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--samples must be at least 1, was " + samples);
    }
    PrintWriter out = spec.commandLine().getOut();
    boolean ansi = !once && !json.enabled() && !noAnsi && terminal();
    ConfigDir config = configDir.get();
    Setup setup = setup(config);
    try (Probe probe = setup.probe(http, Clock.systemUTC())) {
      Observation previous = probe.sample();
      Long dlqBaseline = previous.kafka().map(KafkaFacts::dlqEnd).orElse(null);
      int frames = 0;
      int wanted = once ? 1 : samples == null ? Integer.MAX_VALUE : samples;
      Snapshot snapshot = null;
      if (!once) {
        snapshot = Snapshot.of(setup.names, dlqBaseline, null, previous);
        show(out, snapshot, ansi, frames);
        frames++;
      }
      while (frames < wanted) {
        TimeUnit.NANOSECONDS.sleep(interval.toNanos());
        Observation current = probe.sample();
        if (dlqBaseline == null) {
          dlqBaseline = current.kafka().map(KafkaFacts::dlqEnd).orElse(null);
        }
        snapshot = Snapshot.of(setup.names, dlqBaseline, previous, current);
        show(out, snapshot, ansi, frames);
        frames++;
        previous = current;
      }
      return snapshot.anyReached() ? Herald.EXIT_OK : Herald.EXIT_UNREACHABLE;
    }
  }

  private void show(PrintWriter out, Snapshot snapshot, boolean ansi, int frame)
      throws JsonProcessingException {
    if (json.enabled()) {
      out.println(Json.mapper().writeValueAsString(snapshot));
    } else {
      if (ansi && frame == 0) {
        // Once: what the terminal showed before goes, so no old line shows between frames.
        out.print(Screen.CLEAR_SCREEN);
      } else if (!ansi && frame > 0) {
        out.println();
      }
      out.print(Screen.render(snapshot, ansi));
    }
    out.flush();
  }

  /**
   * Whether standard output is a terminal. From Java 22, {@code System.console()} is not null when
   * the streams are redirected, and {@code Console.isTerminal()} tells; it is called reflectively
   * because the build targets Java 21, where a null console is the answer.
   */
  static boolean terminal() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      Method isTerminal = Console.class.getMethod("isTerminal");
      return (Boolean) isTerminal.invoke(console);
    } catch (NoSuchMethodException e) {
      return true;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Console.isTerminal() failed", e);
    }
  }

  /** The sources as the property files name them, and the names the view shows. */
  private record Setup(
      Snapshot.Names names,
      Reading<URI> writer,
      Reading<URI> relay,
      Reading<URI> consumer,
      Reading<OperatorApi> operator,
      Reading<KafkaClients> clients) {

    Probe probe(HttpClient http, Clock clock) {
      Reading<KafkaProbe> kafka =
          clients.reached()
              ? KafkaProbe.create(
                  clients.value(),
                  names.publicationEvents(),
                  names.dlq(),
                  names.heartbeats(),
                  names.group())
              : Reading.notConfigured(clients.problem());
      return new Probe(http, clock, writer, relay, consumer, operator, kafka);
    }
  }

  /**
   * Reads the property files that exist: a missing file leaves its process "not configured", an
   * invalid one stops the command (exit 2) as it would stop the process.
   */
  private Setup setup(ConfigDir dir) {
    ConsumerConfig consumer = exists(dir, "consumer") ? dir.consumer() : null;
    WriterConfig writer = exists(dir, "writer") ? dir.writer() : null;
    RelayConfig relay = exists(dir, "relay") ? dir.relay() : null;

    Reading<URI> writerUri =
        writer == null ? missing(dir, "writer") : opsUri("writer.ops", writer.ops());
    Reading<URI> relayUri =
        relay == null ? missing(dir, "relay") : opsUri("relay.ops", relay.ops());
    Reading<URI> consumerUri =
        apiOptions
            .consumerUrl()
            .map(Reading::of)
            .orElseGet(
                () ->
                    consumer == null
                        ? missing(dir, "consumer")
                        : opsUri("consumer.ops", consumer.ops()));

    Reading<OperatorApi> operator;
    if (!consumerUri.reached()) {
      operator = Reading.notConfigured("no consumer address");
    } else {
      try {
        operator = Reading.of(apiOptions.api(dir, http));
      } catch (CliFailure | ConfigException e) {
        // No token (or no consumer.properties to find it in): the ages stay unknown, the rest of
        // the view does not need the API.
        operator = Reading.notConfigured(e.getMessage());
      }
    }

    Reading<KafkaClients> kafka;
    if (consumer != null) {
      kafka = Reading.of(KafkaClients.of(consumer.inbox(), kafkaTimeout.get()));
    } else if (relay != null) {
      kafka =
          Reading.of(
              KafkaClients.of(
                  String.valueOf(relay.producer().get("bootstrap.servers")),
                  relay.producer(),
                  kafkaTimeout.get()));
    } else {
      kafka = Reading.notConfigured("neither consumer.properties nor relay.properties");
    }

    Snapshot.Names names =
        new Snapshot.Names(
            endpoint(writerUri),
            endpoint(relayUri),
            endpoint(consumerUri),
            operator.reached() ? endpoint(consumerUri) + "/v1/deliveries" : null,
            kafka.reached() ? kafka.value().bootstrapServers() : null,
            consumer == null ? Topics.PUBLICATION_EVENTS : consumer.inbox().topic(),
            consumer == null ? Topics.PUBLICATION_DLQ : consumer.deadLetters().topic(),
            relay == null ? Topics.HEARTBEATS : relay.engine().heartbeatTopic(),
            consumer == null ? null : consumer.inbox().groupId());
    return new Setup(names, writerUri, relayUri, consumerUri, operator, kafka);
  }

  private static boolean exists(ConfigDir dir, String process) {
    return Files.isRegularFile(dir.path().resolve(process + ".properties"));
  }

  private static <T> Reading<T> missing(ConfigDir dir, String process) {
    return Reading.notConfigured("no " + process + ".properties in " + dir.path());
  }

  private static String endpoint(Reading<URI> uri) {
    return uri.reached() ? uri.value().toString() : null;
  }

  /** The ops server as a client reaches it: a wildcard bind address means this host. */
  static Reading<URI> opsUri(String prefix, OpsEndpoint ops) {
    if (ops.port() == 0) {
      return Reading.notConfigured(
          prefix + ".port=0 (any free port) does not say where it listens");
    }
    String host = ops.host();
    if (host.equals("0.0.0.0") || host.equals("::") || host.isBlank()) {
      host = "127.0.0.1";
    } else if (host.contains(":") && !host.startsWith("[")) {
      host = "[" + host + "]";
    }
    return Reading.of(URI.create("http://" + host + ":" + ops.port()));
  }
}
