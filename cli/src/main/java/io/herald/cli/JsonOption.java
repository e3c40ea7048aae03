package io.herald.cli;

import picocli.CommandLine.Option;

/** {@code --json}, mixed into every subcommand: output for scripts instead of for people. */
public final class JsonOption {

  @Option(
      names = "--json",
      description = "Print JSON for scripts instead of the human-readable form.")
  boolean json;

  public boolean enabled() {
    return json;
  }
}
