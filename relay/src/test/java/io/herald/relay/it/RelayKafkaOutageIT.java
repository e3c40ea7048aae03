package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

@HeraldIntegrationTest
class RelayKafkaOutageIT {

  private static final Duration OUTAGE = Duration.ofSeconds(30);

  @Test
  void shouldDeliverEverythingWrittenDuringAThirtySecondKafkaOutageWithBoundedHeap(
      StackContext context) throws Exception {
    RelayFixture fixture = new RelayFixture(context, "kafka-outage");
    // The production JVM options: the outage must fit the recommended 160 MiB heap (an
    // OutOfMemoryError exits the relay, and the delivery check below fails).
    try (RelayFixture.Relay relay = fixture.start(Map.of(), RelayChild.PRODUCTION_JVM);
        EventCollector events = fixture.collect(fixture.publicationEvents);
        BackgroundWriter writer =
            new BackgroundWriter(fixture.writerOutbox(10), Integer.MAX_VALUE, 10, 20)) {
      Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> events.poll().size() > 100);

      context.stack().kafka().stop();
      double heapMax = 0;
      long outageEnds = System.nanoTime() + OUTAGE.toNanos();
      int writtenAtStop = writer.size();
      RelayFixture.HttpResult health = null;
      // Each second's /health, printed at the end: which check said what, and when.
      List<String> healthTimeline = new ArrayList<>();
      long outageStarts = System.nanoTime();
      while (System.nanoTime() < outageEnds) {
        // The outage itself is the point here: PostgreSQL keeps taking writes while Kafka is gone.
        Thread.sleep(1_000);
        heapMax = Math.max(heapMax, heapUsed(relay));
        health = relay.get("/health");
        healthTimeline.add(
            String.format(
                "%5.1f s %d %s",
                (System.nanoTime() - outageStarts) / 1e9,
                health.status(),
                health.body().replaceAll(".*\"relay\":\\{[^}]*\"detail\":\"([^\"]*)\".*", "$1")));
      }
      int writtenDuringOutage = writer.size() - writtenAtStop;
      context.stack().kafka().start();
      writer.close();
      List<UUID> ids = writer.written();

      events.awaitIds(ids, Duration.ofMinutes(4)).drain(Duration.ofSeconds(1));
      System.out.printf(
          "RelayKafkaOutageIT: %d rows written during the %d s outage, %d in total, all delivered,"
              + " %d duplicates; relay heap used peaked at %.1f MiB during the outage (%s);"
              + " /health at the end of the outage: %s%n",
          writtenDuringOutage,
          OUTAGE.toSeconds(),
          ids.size(),
          events.duplicates(),
          heapMax / (1024 * 1024),
          String.join(" ", RelayChild.PRODUCTION_JVM),
          health);
      System.out.printf(
          "RelayKafkaOutageIT: /health each second of the outage:%n  %s%n",
          String.join(System.lineSeparator() + "  ", healthTimeline));
      assertThat(relay.process().isAlive()).as("relay alive after the outage").isTrue();
      events.assertIdsExactly(ids);
      events.assertCommitOrderPerKey();
      // Kafka unreachable is reported, not hidden behind the producer's internal retries.
      assertThat(health.status()).isEqualTo(503);
      assertThat(health.body()).contains("for Kafka to acknowledge");
      Awaitility.await()
          .atMost(Duration.ofMinutes(1))
          .until(() -> relay.get("/health").status() == 200);
    }
  }

  /** Sum of the relay's heap pools from /metrics. */
  private static double heapUsed(RelayFixture.Relay relay) {
    double sum = 0;
    for (String line : relay.get("/metrics").body().split("\n")) {
      if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }
}
