package io.herald.cli.destinations;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.ConfigDir;
import io.herald.cli.Herald;
import io.herald.cli.JsonOption;
import io.herald.cli.deliveries.DeliveriesCommand;
import io.herald.cli.deliveries.OperatorApi;
import io.herald.cli.deliveries.Table;
import java.net.http.HttpClient;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code herald destinations status | pause D --reason R [--actor A] | resume D --reason R [--actor
 * A]}: each destination's operator pause and circuit breaker, through the consumer's operator API
 * ({@code /v1/destinations}), found and authenticated as for {@code herald deliveries}. Exit 1 for
 * a destination the consumer has not configured.
 */
@Command(
    name = "destinations",
    mixinStandardHelpOptions = true,
    description =
        "Show each destination's pause and circuit breaker, pause or resume a destination, through"
            + " the consumer's operator API.",
    synopsisSubcommandLabel = "(status | pause | resume)")
public final class DestinationsCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private DestinationsCommand() {}

  /** The {@code destinations} command with its subcommands. */
  public static CommandLine commandLine(Supplier<ConfigDir> configDir, HttpClient http) {
    return new CommandLine(new DestinationsCommand())
        .addSubcommand(new Status(configDir, http))
        .addSubcommand(new Pause(configDir, http))
        .addSubcommand(new Resume(configDir, http));
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "Missing subcommand: status, pause or resume");
  }

  /** {@code herald destinations status}. */
  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description =
          "Each configured destination: guarantee, operator pause (who, why, when), the answering"
              + " consumer instance's circuit breaker, deliveries waiting.")
  static final class Status implements Callable<Integer> {

    private final Supplier<ConfigDir> configDir;
    private final HttpClient http;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Mixin JsonOption json;

    @Mixin DeliveriesCommand.ApiOptions apiOptions;

    Status(Supplier<ConfigDir> configDir, HttpClient http) {
      this.configDir = configDir;
      this.http = http;
    }

    @Override
    public Integer call() {
      OperatorApi api = apiOptions.api(configDir.get(), http);
      String body = api.destinations();
      if (json.enabled()) {
        spec.commandLine().getOut().println(body);
      } else {
        spec.commandLine().getOut().print(table(api.json(body)));
        spec.commandLine().getOut().flush();
      }
      return Herald.EXIT_OK;
    }
  }

  /** {@code herald destinations pause D}. */
  @Command(
      name = "pause",
      mixinStandardHelpOptions = true,
      description =
          "Pause a destination: no consumer instance claims its deliveries (they wait) until it is"
              + " resumed; the pause survives restarts.")
  static final class Pause extends Change {
    Pause(Supplier<ConfigDir> configDir, HttpClient http) {
      super(configDir, http, true);
    }
  }

  /** {@code herald destinations resume D}. */
  @Command(
      name = "resume",
      mixinStandardHelpOptions = true,
      description = "Resume a paused destination: its waiting deliveries are dispatched again.")
  static final class Resume extends Change {
    Resume(Supplier<ConfigDir> configDir, HttpClient http) {
      super(configDir, http, false);
    }
  }

  /** What pause and resume share: the destination, who and why. */
  abstract static class Change implements Callable<Integer> {

    private final Supplier<ConfigDir> configDir;
    private final HttpClient http;
    private final boolean pause;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Mixin JsonOption json;

    @Mixin DeliveriesCommand.ApiOptions apiOptions;

    @Parameters(index = "0", paramLabel = "D", description = "The destination's name.")
    String destination;

    @Option(
        names = "--reason",
        required = true,
        paramLabel = "R",
        description = "Why; kept with the decision.")
    String reason;

    @Option(
        names = "--actor",
        paramLabel = "A",
        description = "Who decides; kept with the decision. Default: the user running herald.")
    String actor;

    Change(Supplier<ConfigDir> configDir, HttpClient http, boolean pause) {
      this.configDir = configDir;
      this.http = http;
      this.pause = pause;
    }

    @Override
    public Integer call() {
      if (reason.isBlank()) {
        throw usage("--reason must not be blank");
      }
      String who = actor != null ? actor : System.getProperty("user.name", "");
      if (who.isBlank()) {
        throw usage("--actor must not be blank");
      }
      OperatorApi api = apiOptions.api(configDir.get(), http);
      String body = api.pauseOrResume(destination, pause, who, reason);
      if (json.enabled()) {
        spec.commandLine().getOut().println(body);
      } else {
        JsonNode status = api.json(body);
        spec.commandLine()
            .getOut()
            .println(
                "destination "
                    + status.path("name").asText()
                    + (status.path("paused").asBoolean() ? " paused" : " resumed")
                    + " by "
                    + who
                    + " (breaker "
                    + status.path("breaker").asText()
                    + " on "
                    + status.path("instance").asText()
                    + ", "
                    + status.path("waiting").asLong()
                    + " waiting)");
      }
      return Herald.EXIT_OK;
    }

    private CommandLine.ParameterException usage(String message) {
      return new CommandLine.ParameterException(spec.commandLine(), message);
    }
  }

  /** One line per destination under a header. */
  static String table(JsonNode destinations) {
    Table table =
        new Table(
            List.of(
                "DESTINATION", "TIER", "PAUSED", "BY", "SINCE", "REASON", "BREAKER", "WAITING"));
    String instance = "";
    for (JsonNode d : destinations) {
      JsonNode pause = d.path("pause");
      boolean paused = d.path("paused").asBoolean();
      String breaker = d.path("breaker").asText();
      if (d.hasNonNull("breakerReopensAt")) {
        breaker += " until " + d.get("breakerReopensAt").asText();
      }
      table.row(
          List.of(
              d.path("name").asText(),
              d.path("tier").asText(),
              paused ? "yes" : "no",
              paused ? pause.path("actor").asText() : "",
              paused ? pause.path("at").asText() : "",
              paused ? pause.path("reason").asText() : "",
              breaker,
              d.path("waiting").asText()));
      instance = d.path("instance").asText();
    }
    return table.render()
        + destinations.size()
        + (destinations.size() == 1 ? " destination" : " destinations")
        + (instance.isEmpty() ? "" : "; breakers as seen by consumer " + instance)
        + System.lineSeparator();
  }
}
