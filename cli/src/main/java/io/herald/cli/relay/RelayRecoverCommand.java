package io.herald.cli.relay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.cli.CliDatabase;
import io.herald.cli.CliFailure;
import io.herald.cli.ConfigDir;
import io.herald.cli.Herald;
import io.herald.cli.JsonOption;
import io.herald.cli.kafka.KafkaClients;
import io.herald.common.json.Json;
import io.herald.config.Durations;
import io.herald.relay.config.RelayConfig;
import io.herald.relay.offsets.OffsetStoreException;
import io.herald.relay.recover.PartitionTail;
import io.herald.relay.recover.RecoveryRefusedException;
import io.herald.relay.recover.RecoveryReport;
import io.herald.relay.recover.SlotRecovery;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code herald relay recover}: a new replication slot plus the replay of the retained outbox rows
 * committed after the last event in Kafka, with the relay's own settings from {@code
 * relay.properties} ({@link SlotRecovery}). Exit 1 when it refuses (a relay streams, or the
 * retained window does not reach back to the last event in Kafka: nothing is published then), 3
 * when the database or Kafka cannot be reached.
 */
@Command(
    name = "recover",
    mixinStandardHelpOptions = true,
    description = {
      "Recovers from a lost replication slot (dropped, invalidated, or recreated with the relay"
          + " offsets gone): creates a new slot, republishes every retained outbox row (writer"
          + " events and consumer status events) committed after the last event in Kafka, in id"
          + " order, through the relay's own routing and producer settings, and resets the relay"
          + " offsets so the relay streams from the new slot. Stop the streaming relay first"
          + " (standbys may run). Refuses, publishing nothing, when the retained outbox does not"
          + " reach back to the last event in Kafka, and says what is missing.",
      "Exit codes: 0 recovered (or planned, with --dry-run); 1 refused; 2 bad usage or"
          + " configuration; 3 the database or Kafka could not be reached."
    })
final class RelayRecoverCommand implements Callable<Integer> {

  private final Supplier<ConfigDir> configDir;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin JsonOption json;

  @Option(
      names = "--dry-run",
      description = "Show what would be republished from which point; change nothing.")
  boolean dryRun;

  @Option(
      names = "--overlap",
      defaultValue = "10m",
      description =
          "Republish rows stamped up to this long before the last event in Kafka: longer than any"
              + " writer or consumer transaction takes to commit. Default: ${DEFAULT-VALUE}.")
  String overlap;

  @Option(
      names = "--all-retained",
      description =
          "For an outbox whose topic holds no event: republish every retained row instead of"
              + " refusing.")
  boolean allRetained;

  RelayRecoverCommand(Supplier<ConfigDir> configDir) {
    this.configDir = configDir;
  }

  @Override
  public Integer call() throws JsonProcessingException {
    Duration window = overlap();
    RelayConfig relay = configDir.get().relay();
    SlotRecovery recovery =
        new SlotRecovery(
            relay, CliDatabase.dataSource(relay.database()), Clock.systemUTC(), Json.mapper());
    RecoveryReport report;
    try {
      report = recovery.run(new SlotRecovery.Options(window, allRetained, dryRun));
    } catch (RecoveryRefusedException e) {
      throw CliFailure.violation(e.getMessage());
    } catch (SQLException e) {
      throw CliDatabase.failure(
          e, "recover slot '" + relay.engine().slotName() + "'", relay.database(), "the relay's");
    } catch (TimeoutException | ExecutionException | KafkaException | OffsetStoreException e) {
      // The one mapping of Kafka failures (refused settings 2, anything else 3); running the
      // recovery again is safe: it republishes from the last event in Kafka.
      Throwable cause =
          e instanceof OffsetStoreException && e.getCause() != null ? e.getCause() : e;
      throw KafkaClients.of(
              String.valueOf(relay.producer().get("bootstrap.servers")),
              relay.producer(),
              Duration.ofSeconds(60))
          .failure(
              "recover slot '"
                  + relay.engine().slotName()
                  + "' (running the recovery again is safe)",
              cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CliFailure.unreachable("interrupted while recovering", e);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled()) {
      out.println(Json.mapper().writeValueAsString(json(report)));
    } else {
      out.print(human(report));
      out.flush();
    }
    return Herald.EXIT_OK;
  }

  private Duration overlap() {
    try {
      return Durations.parse(overlap);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--overlap must be a duration like 30s or 10m, was '" + overlap + "'");
    }
  }

  /** What {@code --json} prints: the report's fields, absent values as null. */
  static ObjectNode json(RecoveryReport report) {
    ObjectNode node = Json.mapper().createObjectNode();
    node.put("slot", report.slot());
    node.put("previousSlot", report.previousSlot());
    node.put("consistentPoint", report.consistentPoint().orElse(null));
    node.put("dryRun", report.dryRun());
    node.put("offsetKeysRemoved", report.offsetKeysRemoved());
    ArrayNode outboxes = node.putArray("outboxes");
    for (RecoveryReport.Outbox outbox : report.outboxes()) {
      ObjectNode entry = outboxes.addObject();
      entry.put("outbox", outbox.outbox());
      entry.put("topic", outbox.topic());
      ArrayNode last = entry.putArray("lastInKafka");
      for (PartitionTail tail : outbox.lastInKafka()) {
        last.addObject()
            .put("partition", tail.partition())
            .put("offset", tail.offset())
            .put("eventId", tail.eventId().map(Object::toString).orElse(null))
            .put("timestamp", tail.timestamp().toString());
      }
      entry.put("republishFrom", outbox.republishFrom().toString());
      entry.put("republished", outbox.republished());
    }
    return node;
  }

  /** One block per outbox, then the verdict line. */
  static String human(RecoveryReport report) {
    String nl = System.lineSeparator();
    StringBuilder text = new StringBuilder();
    text.append("slot ")
        .append(report.slot())
        .append(": was ")
        .append(report.previousSlot())
        .append(report.consistentPoint().map(lsn -> ", created again at " + lsn).orElse(""))
        .append(nl);
    for (RecoveryReport.Outbox outbox : report.outboxes()) {
      text.append(outbox.outbox()).append(" -> ").append(outbox.topic()).append(nl);
      if (outbox.lastInKafka().isEmpty()) {
        text.append("  last in Kafka: none").append(nl);
      }
      for (PartitionTail tail : outbox.lastInKafka()) {
        text.append("  last in Kafka: ").append(tail).append(nl);
      }
      text.append("  ")
          .append(report.dryRun() ? "would republish " : "republished ")
          .append(outbox.republished())
          .append(" row(s) stamped from ")
          .append(outbox.republishFrom())
          .append(nl);
    }
    if (report.dryRun()) {
      text.append("DRY RUN: nothing changed; run without --dry-run to recover").append(nl);
    } else {
      text.append("RECOVERED: ")
          .append(report.offsetKeysRemoved())
          .append(" relay offset(s) removed and the new slot recorded; start the relay")
          .append(nl);
    }
    return text.toString();
  }
}
