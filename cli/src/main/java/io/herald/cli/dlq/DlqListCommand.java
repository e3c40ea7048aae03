package io.herald.cli.dlq;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.herald.cli.ConfigDir;
import io.herald.cli.Herald;
import io.herald.cli.JsonOption;
import io.herald.cli.kafka.Partitions;
import io.herald.common.json.Json;
import io.herald.consumer.config.ConsumerConfig;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code herald dlq list}: the dead letters in {@code consumer.topics.dlq}, in topic order (oldest
 * first within each partition), each with its event id, reason, detail, where it came from, when it
 * failed, and whether {@code herald dlq replay} put it back. Reads the topic from its beginning to
 * the end offsets taken at the start, without a consumer group, keeping only the rows it prints
 * ({@code --limit}); the replays come from {@code consumer.dlq_replay}.
 */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description =
        "Dead letters in consumer.topics.dlq, oldest first per partition: id, reason, detail, original"
            + " topic/partition/offset, failed-at, and the replay if there was one.")
final class DlqListCommand implements Callable<Integer> {

  private final Supplier<ConfigDir> configDir;
  private final Supplier<Duration> kafkaTimeout;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin JsonOption json;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "100",
      description = "Most dead letters to show, the first N read. Default: ${DEFAULT-VALUE}.")
  int limit;

  @Option(
      names = "--reason",
      paramLabel = "R",
      description = "Only dead letters with this herald.dlq.reason (invalid_json, ...).")
  String reason;

  DlqListCommand(Supplier<ConfigDir> configDir, Supplier<Duration> kafkaTimeout) {
    this.configDir = configDir;
    this.kafkaTimeout = kafkaTimeout;
  }

  @Override
  public Integer call() throws JsonProcessingException {
    if (limit < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--limit must be at least 1, was " + limit);
    }
    ConsumerConfig config = configDir.get().consumer();
    String topic = config.deadLetters().topic();
    List<DeadLetter> shown = new ArrayList<>();
    long[] matched = {0};
    DlqCommand.reader(config, kafkaTimeout.get())
        .read(
            topic,
            Partitions.all(),
            null,
            record -> {
              DeadLetter letter = DeadLetter.of(record);
              if (reason == null || reason.equals(letter.reason())) {
                matched[0]++;
                if (shown.size() < limit) {
                  shown.add(letter);
                }
              }
            });
    Map<String, ReplayLog.Replay> replays = new ReplayLog(config.database()).find(topic, shown);
    List<DeadLetter> rows =
        shown.stream()
            .map(
                d -> {
                  ReplayLog.Replay replay = replays.get(d.position());
                  return replay == null
                      ? d
                      : d.replayed(replay.at().toInstant().toString(), replay.to());
                })
            .toList();
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled()) {
      out.println(Json.mapper().writeValueAsString(rows));
    } else {
      out.print(DlqOutput.list(topic, rows, matched[0], reason));
      out.flush();
    }
    return Herald.EXIT_OK;
  }
}
