package io.herald.relay.it;

import java.time.Duration;
import org.awaitility.Awaitility;

/**
 * How long a standby took to take over after the leader was stopped (killed, frozen): until its
 * /health says STREAMING, and until the first event it relays arrives.
 */
record Takeover(Duration streaming, Duration firstEvent) {

  /**
   * Called right after the leader stopped: waits for the standby to stream and for an event beyond
   * the {@code seenAtStop} received before, timing both from the call.
   */
  static Takeover await(
      RelayFixture.Relay standby, EventCollector events, int seenAtStop, Duration bound) {
    long stopped = System.nanoTime();
    Awaitility.await()
        .atMost(bound)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> standby.get("/health").body().contains("STREAMING"));
    Duration streaming = Duration.ofNanos(System.nanoTime() - stopped);
    Awaitility.await()
        .atMost(bound)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> events.poll().size() > seenAtStop);
    return new Takeover(streaming, Duration.ofNanos(System.nanoTime() - stopped));
  }
}
