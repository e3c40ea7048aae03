package io.herald.cli.deliveries;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.ConfigDir;
import io.herald.cli.Herald;
import io.herald.cli.JsonOption;
import io.herald.consumer.policy.OperatorAction;
import java.net.http.HttpClient;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code herald deliveries resolve <id> (--published --remote-id X | --retry | --abandon) --reason
 * R --actor A}: one operator action, recorded with who and why. Exit 1 when the delivery's state
 * does not allow the action (the API's 409) or the delivery is unknown (404).
 */
@Command(
    name = "resolve",
    mixinStandardHelpOptions = true,
    description =
        "Resolve a delivery by hand: mark it published (the article exists, with this remote id),"
            + " retry it, or abandon it. Exit 1 when its state does not allow the action or the"
            + " delivery is unknown.")
final class ResolveDelivery implements Callable<Integer> {

  /** Exactly one action. */
  static final class Action {
    @Option(
        names = "--published",
        required = true,
        description = "The article exists at the destination (give --remote-id).")
    boolean published;

    @Option(names = "--retry", required = true, description = "Dispatch again.")
    boolean retry;

    @Option(names = "--abandon", required = true, description = "Give up on this delivery.")
    boolean abandon;

    OperatorAction operatorAction() {
      return published
          ? OperatorAction.MARK_PUBLISHED
          : retry ? OperatorAction.RETRY : OperatorAction.ABANDON;
    }
  }

  private final Supplier<ConfigDir> configDir;
  private final HttpClient http;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin JsonOption json;

  @Mixin DeliveriesCommand.ApiOptions apiOptions;

  @Parameters(index = "0", paramLabel = "ID", description = "The delivery id (a UUID).")
  UUID id;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Action action;

  @Option(
      names = "--remote-id",
      paramLabel = "X",
      description = "The destination's id of the article; with --published only.")
  String remoteId;

  @Option(
      names = "--reason",
      required = true,
      paramLabel = "R",
      description = "Why; kept with the action.")
  String reason;

  @Option(
      names = "--actor",
      required = true,
      paramLabel = "A",
      description = "Who acts; kept with the action.")
  String actor;

  ResolveDelivery(Supplier<ConfigDir> configDir, HttpClient http) {
    this.configDir = configDir;
    this.http = http;
  }

  @Override
  public Integer call() {
    OperatorApi.ActionRequest request = request();
    OperatorApi api = apiOptions.api(configDir.get(), http);
    String body = api.act(id, request);
    if (json.enabled()) {
      spec.commandLine().getOut().println(body);
    } else {
      JsonNode applied = api.json(body);
      spec.commandLine()
          .getOut()
          .println(
              "delivery "
                  + id
                  + ": "
                  + applied.path("from").asText()
                  + " -> "
                  + applied.path("to").asText()
                  + " (operator action "
                  + applied.path("actionId").asText()
                  + ")");
    }
    return Herald.EXIT_OK;
  }

  /** The request the options describe; a contradiction is bad usage (exit 2), named. */
  OperatorApi.ActionRequest request() {
    OperatorAction operatorAction = action.operatorAction();
    if (operatorAction == OperatorAction.MARK_PUBLISHED && blank(remoteId)) {
      throw usage("--published needs --remote-id: the destination's id of the article");
    }
    if (operatorAction != OperatorAction.MARK_PUBLISHED && remoteId != null) {
      throw usage("--remote-id goes with --published only");
    }
    if (blank(reason)) {
      throw usage("--reason must not be blank");
    }
    if (blank(actor)) {
      throw usage("--actor must not be blank");
    }
    return new OperatorApi.ActionRequest(operatorAction.name(), actor, reason, remoteId);
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }

  private static boolean blank(String text) {
    return text == null || text.isBlank();
  }
}
