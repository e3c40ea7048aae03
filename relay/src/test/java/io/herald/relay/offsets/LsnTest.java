package io.herald.relay.offsets;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LsnTest {

  @Test
  void shouldParseAndPrintPostgresTextForm() {
    Lsn lsn = Lsn.parse("16/B374D848");

    assertThat(lsn.value()).isEqualTo((0x16L << 32) | 0xB374D848L);
    assertThat(lsn).hasToString("16/B374D848");
  }

  @Test
  void shouldCompareAsUnsigned() {
    assertThat(new Lsn(-1L).isAfter(new Lsn(1L))).isTrue();
  }
}
