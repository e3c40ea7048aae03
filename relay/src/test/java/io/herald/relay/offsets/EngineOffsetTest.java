package io.herald.relay.offsets;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EngineOffsetTest {

  @Test
  void shouldConfirmTheCommitPositionThenTheProcessedOneThenTheEventsOwn() {
    List<Map<String, Object>> offsets =
        List.of(
            Map.of("lsn", 300L, "lsn_proc", 200L, "lsn_commit", 100L),
            Map.of("lsn", 300L, "lsn_proc", 200L),
            Map.of("lsn", 300L, "txId", 7L),
            Map.of("txId", 7L));

    List<Long> fast = offsets.stream().map(EngineOffset::confirmedPosition).toList();
    List<Optional<Lsn>> parsed =
        offsets.stream().map(o -> EngineOffset.of(o).confirmedPosition()).toList();

    assertThat(fast).containsExactly(100L, 200L, 300L, EngineOffset.NO_POSITION);
    assertThat(parsed)
        .containsExactly(
            Optional.of(new Lsn(100)),
            Optional.of(new Lsn(200)),
            Optional.of(new Lsn(300)),
            Optional.empty());
  }

  @Test
  void shouldHaveNoPositionWithoutAnOffsetOrWithAPositionThatIsNotANumber() {
    Map<String, Object> text = new HashMap<>();
    text.put("lsn_commit", "0/16B3748");

    assertThat(EngineOffset.confirmedPosition(null)).isEqualTo(EngineOffset.NO_POSITION);
    assertThat(EngineOffset.confirmedPosition(text)).isEqualTo(EngineOffset.NO_POSITION);
  }
}
