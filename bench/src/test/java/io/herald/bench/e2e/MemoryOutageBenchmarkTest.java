package io.herald.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.bench.e2e.MemoryOutageBenchmark.PhaseFigures;
import io.herald.bench.e2e.MemoryOutageBenchmark.Sample;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MemoryOutageBenchmarkTest {

  private static final long MIB = 1024 * 1024;

  @Test
  void shouldSumUpEachPhaseOfOneProcessInTheOrderItWasSampled() {
    List<Sample> samples =
        List.of(
            new Sample(0, "full speed", "relay", 200 * MIB, "200"),
            new Sample(0, "full speed", "consumer", 900 * MIB, "200"),
            new Sample(1, "full speed", "relay", 220 * MIB, "200"),
            new Sample(2, "outage", "relay", 240 * MIB, "200"),
            new Sample(3, "outage", "relay", 260 * MIB, "503"),
            new Sample(4, "outage", "relay", 250 * MIB, "503"));

    Map<String, PhaseFigures> relay = MemoryOutageBenchmark.byPhase(samples, "relay");

    assertThat(relay).containsOnlyKeys("full speed", "outage");
    assertThat(List.copyOf(relay.keySet())).containsExactly("full speed", "outage");
    PhaseFigures outage = relay.get("outage");
    assertThat(outage.count).isEqualTo(3);
    assertThat(outage.min).isEqualTo(240 * MIB);
    assertThat(outage.max).isEqualTo(260 * MIB);
    assertThat(outage.first).isEqualTo(240 * MIB);
    assertThat(outage.last).isEqualTo(250 * MIB);
    assertThat(outage.health).containsExactly(Map.entry("200", 1), Map.entry("503", 2));
    assertThat(relay.get("full speed").max).isEqualTo(220 * MIB);
  }

  @Test
  void shouldCountAnExitedProcessAsZeroRssWhenItsSamplesSaySo() {
    List<Sample> samples =
        List.of(
            new Sample(0, "outage", "consumer", 250 * MIB, "200"),
            new Sample(1, "outage", "consumer", 0, "exited"));

    PhaseFigures outage = MemoryOutageBenchmark.byPhase(samples, "consumer").get("outage");

    assertThat(outage.min).isZero();
    assertThat(outage.last).isZero();
    assertThat(outage.health).containsEntry("exited", 1);
  }
}
