package io.herald.cli.slot;

import io.herald.cli.ConfigDir;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code herald slot status}: the relay's replication slot. */
@Command(
    name = "slot",
    mixinStandardHelpOptions = true,
    description = "The relay's replication slot.",
    synopsisSubcommandLabel = "status")
public final class SlotCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private SlotCommand() {}

  /** The {@code slot} command with its subcommands. */
  public static CommandLine commandLine(Supplier<ConfigDir> configDir) {
    return new CommandLine(new SlotCommand()).addSubcommand(new SlotStatusCommand(configDir));
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "Missing subcommand: status");
  }
}
