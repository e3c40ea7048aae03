package io.herald.cli.deliveries;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.ConfigDir;
import io.herald.cli.Herald;
import io.herald.cli.JsonOption;
import java.net.http.HttpClient;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code herald deliveries show <id>}: every field of one delivery. Exit 1 when it is unknown. */
@Command(
    name = "show",
    mixinStandardHelpOptions = true,
    description = "Show one delivery (exit 1 when there is none with that id).")
final class ShowDelivery implements Callable<Integer> {

  private final Supplier<ConfigDir> configDir;
  private final HttpClient http;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin JsonOption json;

  @Mixin DeliveriesCommand.ApiOptions apiOptions;

  @Parameters(index = "0", paramLabel = "ID", description = "The delivery id (a UUID).")
  UUID id;

  ShowDelivery(Supplier<ConfigDir> configDir, HttpClient http) {
    this.configDir = configDir;
    this.http = http;
  }

  @Override
  public Integer call() {
    OperatorApi api = apiOptions.api(configDir.get(), http);
    String body = api.show(id);
    if (json.enabled()) {
      spec.commandLine().getOut().println(body);
    } else {
      spec.commandLine().getOut().print(fields(api.json(body)));
      spec.commandLine().getOut().flush();
    }
    return Herald.EXIT_OK;
  }

  /** {@code name value} per field, in the API's order; null fields show as {@code -}. */
  static String fields(JsonNode delivery) {
    int width = 0;
    for (Map.Entry<String, JsonNode> field : delivery.properties()) {
      width = Math.max(width, field.getKey().length());
    }
    StringBuilder text = new StringBuilder();
    for (Map.Entry<String, JsonNode> field : delivery.properties()) {
      String value = field.getValue().isNull() ? "-" : field.getValue().asText();
      text.append(field.getKey())
          .append(" ".repeat(width - field.getKey().length() + 2))
          .append(value)
          .append(System.lineSeparator());
    }
    return text.toString();
  }
}
