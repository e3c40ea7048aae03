package io.herald.cli.dlq;

import io.herald.cli.ConfigDir;
import io.herald.cli.kafka.KafkaClients;
import io.herald.cli.kafka.TopicReader;
import io.herald.consumer.config.ConsumerConfig;
import java.time.Duration;
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

  /** How long reading (or one replayed record's delivery) may go without progress: exit 3. */
  static final Duration STALL_TIMEOUT = Duration.ofSeconds(30);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private DlqCommand() {}

  /** The {@code dlq} command with its subcommands. */
  /**
   * @param kafkaTimeout {@code herald --kafka-timeout}: how long one Kafka request may take before
   *     the command gives up (exit 3)
   */
  public static CommandLine commandLine(
      Supplier<ConfigDir> configDir, Supplier<Duration> kafkaTimeout) {
    return new CommandLine(new DlqCommand())
        .addSubcommand(new DlqListCommand(configDir, kafkaTimeout))
        .addSubcommand(new DlqReplayCommand(configDir, kafkaTimeout));
  }

  /**
   * The dead-letter topic's reader: the consumer's cluster ({@code
   * consumer.kafka.bootstrap-servers} and the connection settings of {@code kafka.consumer.*}),
   * from the beginning to the end offsets taken at start.
   */
  static TopicReader reader(ConsumerConfig config, Duration requestTimeout) {
    return new TopicReader(
        KafkaClients.of(config.inbox(), requestTimeout), "herald-cli-dlq", STALL_TIMEOUT);
  }

  /** The replay producer's cluster: the connection settings of {@code kafka.producer.*}. */
  static KafkaClients replayClients(ConsumerConfig config, Duration requestTimeout) {
    return KafkaClients.of(
        config.inbox().bootstrapServers(),
        config.deadLetters().producerOverrides(),
        requestTimeout);
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "Missing subcommand: list or replay");
  }
}
