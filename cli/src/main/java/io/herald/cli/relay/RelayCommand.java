package io.herald.cli.relay;

import io.herald.cli.ConfigDir;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code herald relay recover}: operator actions on the relay's capture. */
@Command(
    name = "relay",
    mixinStandardHelpOptions = true,
    description = "Operator actions on the relay's replication slot and offsets.",
    synopsisSubcommandLabel = "recover")
public final class RelayCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private RelayCommand() {}

  /** The {@code relay} command with its subcommands. */
  public static CommandLine commandLine(Supplier<ConfigDir> configDir) {
    return new CommandLine(new RelayCommand()).addSubcommand(new RelayRecoverCommand(configDir));
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "Missing subcommand: recover");
  }
}
