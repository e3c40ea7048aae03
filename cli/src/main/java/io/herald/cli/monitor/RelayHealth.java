package io.herald.cli.monitor;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The relay's {@code /health} as the monitor reads it: the phase and the age of the last batch from
 * the detail of the {@code relay} check ({@code "STREAMING; last event 40 ms ago; last batch 12 ms
 * ago"}, written by the relay's {@code RelayHealth}). A streaming relay hands over a batch at least
 * every heartbeat interval, heartbeats included, so the last batch's age is the heartbeat's age
 * when the heartbeat topic holds nothing. Immutable.
 *
 * @param phase STANDBY, STARTING, STREAMING, KAFKA_UNAVAILABLE, STOPPING or FAILED; null if absent
 * @param lastBatchAge null before the first batch
 */
record RelayHealth(String phase, Duration lastBatchAge) {

  private static final Pattern LAST_BATCH = Pattern.compile("last batch (\\d+) ms ago");

  /** Reads the {@code /health} body; fields it cannot find stay null. */
  static RelayHealth parse(JsonNode health) {
    String detail = health.path("checks").path("relay").path("detail").asText("");
    String phase = detail.isEmpty() ? null : detail.split(";", 2)[0].strip();
    Matcher batch = LAST_BATCH.matcher(detail);
    Duration age = batch.find() ? Duration.ofMillis(Long.parseLong(batch.group(1))) : null;
    return new RelayHealth(phase == null || phase.isEmpty() ? null : phase, age);
  }

  Optional<Duration> lastBatch() {
    return Optional.ofNullable(lastBatchAge);
  }
}
