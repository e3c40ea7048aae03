package io.herald.cli.dlq;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.herald.cli.CliFailure;
import io.herald.cli.ConfigDir;
import io.herald.cli.Herald;
import io.herald.cli.JsonOption;
import io.herald.cli.kafka.KafkaClients;
import io.herald.cli.kafka.Partitions;
import io.herald.cli.kafka.TopicReader;
import io.herald.common.json.Json;
import io.herald.consumer.config.ConsumerConfig;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code herald dlq replay}: puts dead letters back through intake, once their cause is fixed, by
 * producing each one's original key, value and headers to its original topic and partition (see
 * docs/design.md, "herald dlq"). Intake then treats it as the record it was: a dead letter never
 * wrote an inbox row, so the event is new to the inbox once and a duplicate after that. Each dead
 * letter is replayed at most once ({@code consumer.dlq_replay}); replaying it again prints {@code
 * already replayed} and produces nothing. Exit 1 when an {@code --id} is not in the DLQ (nothing is
 * replayed then).
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description =
        "Put dead letters back on their original topic, for intake, once their cause is fixed."
            + " Each dead letter is replayed once; a second replay changes nothing."
            + " Exit 1 when an --id is not in the DLQ.")
final class DlqReplayCommand implements Callable<Integer> {

  private final Supplier<ConfigDir> configDir;
  private final Supplier<Duration> kafkaTimeout;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin JsonOption json;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Which which;

  static final class Which {
    @Option(
        names = "--id",
        arity = "1..*",
        paramLabel = "ID",
        description = "Event ids (the id header, as dlq list shows them) to replay.")
    List<UUID> ids;

    @Option(names = "--all", description = "Replay every dead letter not replayed yet.")
    boolean all;
  }

  DlqReplayCommand(Supplier<ConfigDir> configDir, Supplier<Duration> kafkaTimeout) {
    this.configDir = configDir;
    this.kafkaTimeout = kafkaTimeout;
  }

  @Override
  public Integer call() throws JsonProcessingException {
    ConsumerConfig config = configDir.get().consumer();
    String topic = config.deadLetters().topic();
    ReplayLog log = new ReplayLog(config.database());
    List<ReplayResult> results = new ArrayList<>();
    TopicReader reader = DlqCommand.reader(config, kafkaTimeout.get());
    KafkaClients kafka = DlqCommand.replayClients(config, kafkaTimeout.get());
    try (KafkaProducer<byte[], byte[]> producer =
        kafka.newProducer("herald-cli-dlq-replay", DlqCommand.STALL_TIMEOUT)) {
      if (which.all) {
        reader.read(
            topic,
            Partitions.all(),
            null,
            record -> results.add(replay(record, log, kafka, producer)));
      } else {
        // The matches are held, not streamed: nothing is replayed unless every id is found.
        Set<UUID> wanted = new LinkedHashSet<>(which.ids);
        List<ConsumerRecord<byte[], byte[]>> matches = new ArrayList<>();
        reader.read(
            topic,
            Partitions.all(),
            null,
            record -> {
              Optional<UUID> id = DeadLetter.of(record).eventId();
              if (id.isPresent() && wanted.contains(id.get())) {
                matches.add(record);
              }
            });
        Set<String> missing = new TreeSet<>();
        for (UUID id : wanted) {
          if (matches.stream()
              .noneMatch(r -> DeadLetter.of(r).eventId().orElseThrow().equals(id))) {
            missing.add(id.toString());
          }
        }
        if (!missing.isEmpty()) {
          throw CliFailure.violation(
              "not in " + topic + ": " + String.join(", ", missing) + "; nothing replayed");
        }
        for (ConsumerRecord<byte[], byte[]> record : matches) {
          results.add(replay(record, log, kafka, producer));
        }
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled()) {
      out.println(Json.mapper().writeValueAsString(results));
    } else {
      out.print(DlqOutput.replay(results));
      out.flush();
    }
    return Herald.EXIT_OK;
  }

  private static ReplayResult replay(
      ConsumerRecord<byte[], byte[]> record,
      ReplayLog log,
      KafkaClients kafka,
      KafkaProducer<byte[], byte[]> producer) {
    DeadLetter letter = DeadLetter.of(record);
    Optional<UUID> id = letter.eventId();
    if (id.isEmpty()) {
      return ReplayResult.of(
          ReplayResult.SKIPPED,
          letter,
          null,
          null,
          "no event id (the id header is missing or not a UUID); intake would dead-letter it again");
    }
    Optional<ProducerRecord<byte[], byte[]>> replay = DeadLetter.replayRecord(record);
    if (replay.isEmpty()) {
      return ReplayResult.of(
          ReplayResult.SKIPPED,
          letter,
          null,
          null,
          "no herald.dlq.original.topic and partition: not written by a Herald consumer");
    }
    ReplayLog.Outcome outcome =
        log.replayOnce(letter, id.get(), () -> produce(kafka, producer, replay.get(), letter));
    return switch (outcome) {
      case ReplayLog.Outcome.Replayed r ->
          ReplayResult.of(
              ReplayResult.REPLAYED,
              letter,
              r.replay().at().toInstant().toString(),
              r.replay().to(),
              null);
      case ReplayLog.Outcome.AlreadyReplayed a ->
          ReplayResult.of(
              ReplayResult.ALREADY_REPLAYED,
              letter,
              a.replay().at().toInstant().toString(),
              a.replay().to(),
              null);
    };
  }

  /** Sends and waits for the acknowledgement; returns {@code <topic>-<partition>@<offset>}. */
  private static String produce(
      KafkaClients kafka,
      KafkaProducer<byte[], byte[]> producer,
      ProducerRecord<byte[], byte[]> record,
      DeadLetter letter) {
    String what =
        "replay dead letter "
            + letter.position()
            + " to "
            + record.topic()
            + "-"
            + record.partition();
    try {
      RecordMetadata written =
          producer
              .send(record)
              .get(
                  DlqCommand.STALL_TIMEOUT.toMillis() + kafka.requestTimeout().toMillis(),
                  TimeUnit.MILLISECONDS);
      return written.topic() + "-" + written.partition() + "@" + written.offset();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CliFailure.unreachable("interrupted while trying to " + what, e);
    } catch (ExecutionException | TimeoutException | KafkaException e) {
      throw kafka.failure(what, e);
    }
  }
}
