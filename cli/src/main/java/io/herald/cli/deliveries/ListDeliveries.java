package io.herald.cli.deliveries;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.herald.cli.ConfigDir;
import io.herald.cli.Herald;
import io.herald.cli.JsonOption;
import io.herald.common.json.Json;
import io.herald.consumer.delivery.DeliveryState;
import java.net.http.HttpClient;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code herald deliveries list --state S [--destination D] [--limit N]}. */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = "List deliveries in one state, oldest first.")
final class ListDeliveries implements Callable<Integer> {

  /** The API's own bound on one page. */
  static final int MAX_LIMIT = 1000;

  private final Supplier<ConfigDir> configDir;
  private final HttpClient http;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin JsonOption json;

  @Mixin DeliveriesCommand.ApiOptions apiOptions;

  @Option(
      names = "--state",
      required = true,
      paramLabel = "STATE",
      description = "One of: ${COMPLETION-CANDIDATES} (any case).")
  DeliveryState state;

  @Option(
      names = "--destination",
      paramLabel = "NAME",
      description =
          "Only deliveries to this destination (filtered here, from the oldest "
              + MAX_LIMIT
              + " in the state).")
  String destination;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "100",
      description = "At most N deliveries, 1.." + MAX_LIMIT + ". Default: ${DEFAULT-VALUE}.")
  int limit;

  ListDeliveries(Supplier<ConfigDir> configDir, HttpClient http) {
    this.configDir = configDir;
    this.http = http;
  }

  @Override
  public Integer call() throws JsonProcessingException {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--limit must be between 1 and " + MAX_LIMIT + ", was " + limit);
    }
    OperatorApi api = apiOptions.api(configDir.get(), http);
    // The API filters by state only: a destination filter reads the largest page and keeps the
    // first --limit of that destination.
    String body = api.list(state.name(), destination == null ? limit : MAX_LIMIT);
    JsonNode deliveries = api.json(body);
    if (destination != null) {
      ArrayNode kept = Json.mapper().createArrayNode();
      for (JsonNode delivery : deliveries) {
        if (kept.size() < limit && destination.equals(delivery.path("destination").asText())) {
          kept.add(delivery);
        }
      }
      deliveries = kept;
      body = Json.mapper().writeValueAsString(kept);
    }
    if (json.enabled()) {
      spec.commandLine().getOut().println(body);
    } else {
      spec.commandLine().getOut().print(table(deliveries));
      spec.commandLine().getOut().flush();
    }
    return Herald.EXIT_OK;
  }

  /** One line per delivery under a header, columns padded to their widest value. */
  static String table(JsonNode deliveries) {
    Table table = new Table(List.of("ID", "STATE", "DESTINATION", "KEY", "ATTEMPTS", "UPDATED"));
    for (JsonNode d : deliveries) {
      table.row(
          List.of(
              d.path("id").asText(),
              d.path("state").asText(),
              d.path("destination").asText(),
              d.path("tenant").asText()
                  + "/"
                  + d.path("articleId").asText()
                  + "/"
                  + d.path("revisionId").asText(),
              d.path("attempts").asText(),
              d.path("updatedAt").asText()));
    }
    return table.render()
        + deliveries.size()
        + (deliveries.size() == 1 ? " delivery" : " deliveries")
        + System.lineSeparator();
  }
}
