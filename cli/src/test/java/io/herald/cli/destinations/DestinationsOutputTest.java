package io.herald.cli.destinations;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.common.json.Json;
import org.junit.jupiter.api.Test;

class DestinationsOutputTest {

  @Test
  void shouldShowWhoPausedWhyAndTheBreakersEndWhenOpen() throws Exception {
    String body =
        "[{\"name\":\"dest-a\",\"tier\":\"exactly-once-in-effect\",\"guarantee\":\"g\","
            + "\"paused\":true,\"pause\":{\"paused\":true,\"actor\":\"eve\",\"reason\":\"vendor"
            + " maintenance\",\"at\":\"2026-12-01T16:00:00Z\"},\"breaker\":\"CLOSED\","
            + "\"consecutiveFailures\":0,\"breakerReopensAt\":null,\"breakerOpenedTotal\":0,"
            + "\"waiting\":12,\"instance\":\"host:42\"},"
            + "{\"name\":\"dest-b\",\"tier\":\"at-most-once-operator\",\"guarantee\":\"g\","
            + "\"paused\":false,\"pause\":{\"paused\":false,\"actor\":\"bob\",\"reason\":\"back\","
            + "\"at\":\"2026-12-01T15:00:00Z\"},\"breaker\":\"OPEN\",\"consecutiveFailures\":0,"
            + "\"breakerReopensAt\":\"2026-12-01T16:00:30Z\",\"breakerOpenedTotal\":3,"
            + "\"waiting\":4,\"instance\":\"host:42\"}]";

    String table = DestinationsCommand.table(Json.mapper().readTree(body));

    assertThat(table)
        .startsWith("DESTINATION  TIER ")
        .containsPattern(
            "(?m)^dest-a +exactly-once-in-effect +yes +eve +2026-12-01T16:00:00Z +vendor"
                + " maintenance +CLOSED +12$")
        .containsPattern(
            "(?m)^dest-b +at-most-once-operator +no +OPEN until 2026-12-01T16:00:30Z +4$")
        .endsWith("2 destinations; breakers as seen by consumer host:42" + System.lineSeparator());
  }
}
