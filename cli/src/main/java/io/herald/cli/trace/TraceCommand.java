package io.herald.cli.trace;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import io.herald.cli.CliFailure;
import io.herald.cli.ConfigDir;
import io.herald.cli.Herald;
import io.herald.cli.JsonOption;
import io.herald.cli.kafka.KafkaClients;
import io.herald.cli.kafka.TopicReader;
import io.herald.common.json.Json;
import io.herald.consumer.config.ConsumerConfig;
import io.herald.runtime.inbox.InboxSettings;
import io.herald.writer.config.WriterConfig;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code herald trace <jobId | tenant/article/revision/destination>}: the chain of custody of one
 * publication, read from the writer's database ({@code writer.properties}), the consumer's ({@code
 * consumer.properties}), {@code consumer.topics.publication-events} and the writer's status topic
 * ({@code writer.status.topic}), each Kafka topic only in the job's partition and from the job's
 * creation on. Exit 1 when the writer has no such job.
 */
@Command(
    name = "trace",
    mixinStandardHelpOptions = true,
    description =
        "The chain of custody of one publication: the job, its event in Kafka (partition, offset,"
            + " copies), the inbox row, the delivery with every attempt (claim token, start, end,"
            + " HTTP status, outcome), operator actions, each status event and the writer's view,"
            + " in time order. Exit 1 when the job does not exist.")
public final class TraceCommand implements Callable<Integer> {

  private static final ObjectMapper JSON =
      Json.mapper()
          .copy()
          .registerModule(
              new SimpleModule().addSerializer(Instant.class, ToStringSerializer.instance));

  private final Supplier<ConfigDir> configDir;

  /** {@code herald --kafka-timeout}: any one Kafka request, and reading without progress. */
  private final Supplier<Duration> kafkaTimeout;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin JsonOption json;

  @Parameters(
      index = "0",
      paramLabel = "<jobId | tenant/article/revision/destination>",
      description = "The job's id, or its business key.")
  String target;

  public TraceCommand(Supplier<ConfigDir> configDir, Supplier<Duration> kafkaTimeout) {
    this.configDir = configDir;
    this.kafkaTimeout = kafkaTimeout;
  }

  @Override
  public Integer call() throws JsonProcessingException {
    Target parsed;
    try {
      parsed = Target.parse(target);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    ConfigDir dir = configDir.get();
    WriterConfig writer = dir.writer();
    ConsumerConfig consumer = dir.consumer();
    InboxSettings intake = consumer.inbox();
    Optional<InboxSettings> status = writer.status();
    Optional<Trace> trace;
    Duration timeout = kafkaTimeout.get();
    TopicReader publications =
        new TopicReader(KafkaClients.of(intake, timeout), "herald-cli-trace-publications", timeout);
    TopicReader statuses =
        status
            .map(
                s ->
                    new TopicReader(
                        KafkaClients.of(s, timeout), "herald-cli-trace-status", timeout))
            .orElse(null);
    try (TraceDatabase database = TraceDatabase.open(writer.database(), consumer.database())) {
      trace =
          new TraceReader(
                  database,
                  publications,
                  intake.topic(),
                  statuses,
                  status.map(InboxSettings::topic).orElse(null))
              .read(parsed);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (trace.isEmpty()) {
      throw CliFailure.violation("no " + parsed + " in writer.publication_job");
    }
    if (json.enabled()) {
      out.println(JSON.writeValueAsString(trace.get()));
    } else {
      out.print(TraceText.human(trace.get()));
      out.flush();
    }
    return Herald.EXIT_OK;
  }
}
