package io.herald.cli.dlq;

import io.herald.cli.ConfigDir;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code herald dlq list | replay}: the consumer's dead-letter topic ({@code consumer.topics.dlq}).
 */
@Command(
    name = "dlq",
    mixinStandardHelpOptions = true,
    description = "The consumer's dead letters: list them, replay them through intake.",
    synopsisSubcommandLabel = "(list | replay)")
public final class DlqCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private DlqCommand() {}

  /** The {@code dlq} command with its subcommands. */
  public static CommandLine commandLine(Supplier<ConfigDir> configDir) {
    return new CommandLine(new DlqCommand())
        .addSubcommand(new DlqListCommand(configDir))
        .addSubcommand(new DlqReplayCommand(configDir));
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "Missing subcommand: list or replay");
  }
}
