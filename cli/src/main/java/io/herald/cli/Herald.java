package io.herald.cli;

import io.herald.cli.audit.AuditCommand;
import io.herald.cli.deliveries.DeliveriesCommand;
import io.herald.cli.dlq.DlqCommand;
import io.herald.cli.monitor.MonitorCommand;
import io.herald.cli.purge.PurgeCommand;
import io.herald.cli.slot.SlotCommand;
import io.herald.cli.trace.TraceCommand;
import io.herald.config.ConfigException;
import io.herald.runtime.telemetry.Telemetry;
import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code herald} command: one entry point for operators and scripts. It reads the same {@code
 * connect-config/*.properties} and {@code HERALD_*} overrides as the processes; secrets come from
 * the environment or a file, never from an argument ({@code ps} shows arguments).
 *
 * <p>Exit codes: {@value #EXIT_OK} ok; {@value #EXIT_VIOLATION} a violation was found or the action
 * was refused; {@value #EXIT_USAGE} bad usage or configuration; {@value #EXIT_UNREACHABLE} a
 * dependency (database, Kafka, a process's API) could not be reached.
 *
 * <pre>{@code
 * ./herald deliveries list --state NEEDS_RECONCILIATION
 * ./herald slot status --json
 * }</pre>
 */
@Command(
    name = "herald",
    mixinStandardHelpOptions = true,
    versionProvider = Herald.Version.class,
    description =
        "Operate Herald: audit, monitor, trace, deliveries, dead letters, retention, the"
            + " replication slot.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:ok",
      "1:a violation was found or the action was refused",
      "2:bad usage or configuration",
      "3:a dependency (database, Kafka, a process's API) could not be reached"
    })
public final class Herald {

  public static final int EXIT_OK = 0;
  public static final int EXIT_VIOLATION = 1;
  public static final int EXIT_USAGE = 2;
  public static final int EXIT_UNREACHABLE = 3;

  /** How long a connection to a process's API may take before the command gives up (exit 3). */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  @Option(
      names = "--config-dir",
      scope = ScopeType.INHERIT,
      paramLabel = "DIR",
      defaultValue = ConfigDir.DEFAULT,
      description =
          "Directory of the processes' property files (writer.properties, consumer.properties,"
              + " relay.properties)."
              + " Default: ${DEFAULT-VALUE}.")
  Path configDir;

  @Option(
      names = "--kafka-timeout",
      scope = ScopeType.INHERIT,
      paramLabel = "D",
      defaultValue = "10s",
      converter = DurationOption.class,
      description =
          "How long one Kafka request (or, while reading a topic, a stretch without progress)"
              + " may take before the command calls Kafka unreachable (exit 3; monitor shows it):"
              + " trace, dlq, monitor. Default: ${DEFAULT-VALUE}.")
  Duration kafkaTimeout;

  private final Map<String, String> env;

  private Herald(Map<String, String> env) {
    this.env = Objects.requireNonNull(env, "env");
  }

  public static void main(String[] args) {
    // The commands trace nothing; some make Debezium's outbox router, which reads the global.
    Telemetry.noopGlobal();
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    System.exit(run(args, System.getenv(), out, err));
  }

  /**
   * Runs one command line; returns its exit code. Output goes to {@code out}, messages to {@code
   * err}. Thread-safe as far as {@code out} and {@code err} are.
   */
  public static int run(String[] args, Map<String, String> env, PrintWriter out, PrintWriter err) {
    return commandLine(env, out, err).execute(args);
  }

  /** The command tree, for {@link #run} and for tests that inspect it. */
  static CommandLine commandLine(Map<String, String> env, PrintWriter out, PrintWriter err) {
    Herald herald = new Herald(env);
    HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();
    CommandLine cli = new CommandLine(herald);
    cli.addSubcommand(new AuditCommand(herald::configDir, http, Clock.systemUTC()));
    cli.addSubcommand(DeliveriesCommand.commandLine(herald::configDir, http));
    cli.addSubcommand(
        io.herald.cli.destinations.DestinationsCommand.commandLine(herald::configDir, http));
    cli.addSubcommand(SlotCommand.commandLine(herald::configDir));
    cli.addSubcommand(io.herald.cli.relay.RelayCommand.commandLine(herald::configDir));
    cli.addSubcommand(new MonitorCommand(herald::configDir, herald::kafkaTimeout, http));
    cli.addSubcommand(new CommandLine(new TraceCommand(herald::configDir, herald::kafkaTimeout)));
    cli.addSubcommand(DlqCommand.commandLine(herald::configDir, herald::kafkaTimeout));
    cli.addSubcommand(new PurgeCommand(herald::configDir));
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler(
        (exception, command, parseResult) -> failed(exception, command.getErr()));
    return cli;
  }

  private ConfigDir configDir() {
    return new ConfigDir(configDir, env);
  }

  private Duration kafkaTimeout() {
    return kafkaTimeout;
  }

  private static int failed(Exception exception, PrintWriter err) {
    return switch (exception) {
      case CliFailure failure -> {
        err.println("herald: " + failure.getMessage() + causeOf(failure));
        yield failure.exitCode();
      }
      case ConfigException config -> {
        err.println("herald: configuration error: " + config.getMessage());
        yield EXIT_USAGE;
      }
      default -> {
        // A defect, not an operator's mistake: the trace is what a bug report needs.
        err.println("herald: unexpected failure: " + exception);
        exception.printStackTrace(err);
        yield EXIT_VIOLATION;
      }
    };
  }

  private static String causeOf(Throwable failure) {
    Throwable cause = failure.getCause();
    return cause == null ? "" : " (" + cause + ")";
  }

  /** The build's version, from the jar's manifest when packaged. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = Herald.class.getPackage().getImplementationVersion();
      return new String[] {"herald " + (version == null ? "(development build)" : version)};
    }
  }
}
