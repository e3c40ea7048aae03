package io.herald.cli.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.common.json.Json;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RelayHealthTest {

  @Test
  void shouldReadThePhaseAndTheLastBatchAgeFromTheRelayChecksDetail() throws Exception {
    RelayHealth health =
        RelayHealth.parse(
            Json.mapper()
                .readTree(
                    "{\"status\":\"UP\",\"process\":\"relay\",\"checks\":{\"relay\":{\"status\":\"UP\","
                        + "\"detail\":\"STREAMING; last event 40 ms ago; last batch 1250 ms ago\"}}}"));

    assertThat(health).isEqualTo(new RelayHealth("STREAMING", Duration.ofMillis(1250)));
  }

  @Test
  void shouldLeaveWhatTheDetailLacksNull() throws Exception {
    assertThat(
            RelayHealth.parse(
                Json.mapper()
                    .readTree(
                        "{\"checks\":{\"relay\":{\"detail\":\"STANDBY; last event never; last batch never\"}}}")))
        .isEqualTo(new RelayHealth("STANDBY", null));
    assertThat(RelayHealth.parse(Json.mapper().readTree("{}")))
        .isEqualTo(new RelayHealth(null, null));
  }
}
