package io.herald.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class RssTest {

  @Test
  void shouldReadVmRssInKibibytesWhenTheStatusHasIt() {
    String status = "Name:\tjava\nVmPeak:\t 9999 kB\nVmRSS:\t  312456 kB\nRssAnon:\t 300000 kB\n";

    assertThat(Rss.parseVmRss(status)).isEqualTo(OptionalLong.of(312456));
  }

  @Test
  void shouldBeEmptyWhenTheStatusHasNoVmRss() {
    assertThat(Rss.parseVmRss("Name:\tkthreadd\nState:\tS (sleeping)\n")).isEmpty();
  }

  @Test
  void shouldRefuseAVmRssLineInAnotherUnit() {
    assertThatThrownBy(() -> Rss.parseVmRss("VmRSS:\t 12 MB\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("VmRSS");
  }

  @Test
  void shouldReadThisJvmsOwnRss() {
    assertThat(Rss.kibibytes(ProcessHandle.current().pid()).orElseThrow()).isPositive();
  }
}
