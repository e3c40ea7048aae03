package io.herald.cli.deliveries;

import io.herald.cli.CliFailure;
import io.herald.cli.ConfigDir;
import io.herald.config.ConfigSource;
import io.herald.consumer.config.ConsumerConfig;
import io.herald.runtime.ops.OpsEndpoint;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code herald deliveries list | show | resolve}: operator actions through the consumer's operator
 * API. Where the API is, and its token, come from {@code consumer.properties} and its {@code
 * HERALD_*} overrides unless {@code --consumer-url} and {@code --token-file} say otherwise.
 */
@Command(
    name = "deliveries",
    mixinStandardHelpOptions = true,
    description = "List, show and resolve deliveries through the consumer's operator API.",
    synopsisSubcommandLabel = "(list | show | resolve)")
public final class DeliveriesCommand implements Runnable {

  /** The operator token's variable: the consumer's own override of consumer.ops.operator-token. */
  public static final String TOKEN_ENV =
      ConfigSource.envName(ConsumerConfig.OPS_OPERATOR_TOKEN.name());

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private DeliveriesCommand() {}

  /** The {@code deliveries} command with its subcommands. */
  public static CommandLine commandLine(Supplier<ConfigDir> configDir, HttpClient http) {
    return new CommandLine(new DeliveriesCommand())
        .addSubcommand(new ListDeliveries(configDir, http))
        .addSubcommand(new ShowDelivery(configDir, http))
        .addSubcommand(new ResolveDelivery(configDir, http));
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "Missing subcommand: list, show or resolve");
  }

  /** Where the operator API is and how to authenticate: options shared by the subcommands. */
  public static final class ApiOptions {

    @Option(
        names = "--consumer-url",
        paramLabel = "URL",
        description =
            "Base URL of the consumer's ops server. Default: http://consumer.ops.host:consumer.ops.port"
                + " from consumer.properties.")
    URI consumerUrl;

    @Option(
        names = "--token-file",
        paramLabel = "PATH",
        description =
            "File holding the operator token. Default: the "
                + "HERALD_CONSUMER_OPS_OPERATOR_TOKEN variable, else consumer.ops.operator-token"
                + " in consumer.properties. Never an argument: ps would show it.")
    Path tokenFile;

    /** {@code --consumer-url}, when given. */
    public Optional<URI> consumerUrl() {
      return Optional.ofNullable(consumerUrl);
    }

    /** The API client; reads {@code consumer.properties} only for what the options leave open. */
    public OperatorApi api(ConfigDir configDir, HttpClient http) {
      Optional<ConsumerConfig> config = Optional.empty();
      Optional<String> token = tokenFile != null ? Optional.of(readToken()) : envToken(configDir);
      if (token.isEmpty()) {
        config = Optional.of(configDir.consumer());
        token = config.get().operatorToken();
      }
      String operatorToken =
          token.orElseThrow(
              () ->
                  CliFailure.usage(
                      "no operator token: set "
                          + TOKEN_ENV
                          + " or pass --token-file PATH (never the token itself as an argument)"));
      URI base = consumerUrl;
      if (base == null) {
        base = baseUri((config.isPresent() ? config.get() : configDir.consumer()).ops());
      }
      return new OperatorApi(base, operatorToken, http);
    }

    private String readToken() {
      try {
        String token = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
        if (token.isEmpty()) {
          throw CliFailure.usage("the token file " + tokenFile + " is empty");
        }
        return token;
      } catch (IOException e) {
        throw CliFailure.usage("cannot read the token file " + tokenFile, e);
      }
    }

    private static Optional<String> envToken(ConfigDir configDir) {
      return Optional.ofNullable(configDir.env().get(TOKEN_ENV))
          .map(String::strip)
          .filter(token -> !token.isEmpty());
    }
  }

  /** The ops server as a client reaches it: a wildcard bind address means this host. */
  static URI baseUri(OpsEndpoint ops) {
    if (ops.port() == 0) {
      throw CliFailure.usage(
          "consumer.ops.port=0 (any free port) does not say where the consumer listens:"
              + " pass --consumer-url");
    }
    String host = ops.host();
    if (host.equals("0.0.0.0") || host.equals("::") || host.isBlank()) {
      host = "127.0.0.1";
    } else if (host.contains(":") && !host.startsWith("[")) {
      host = "[" + host + "]";
    }
    return URI.create("http://" + host + ":" + ops.port());
  }
}
