package io.herald.bench.relay;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BareReaderTest {

  @Test
  void shouldBeDoneOnlyAtTheCommitAfterTheLastInsertWanted() {
    BareReader.Tally tally = new BareReader.Tally();
    for (byte type : "BRIIC".getBytes(java.nio.charset.StandardCharsets.US_ASCII)) {
      assertThat(tally.done(2)).isFalse();
      tally.accept(type);
    }
    assertThat(tally.done(2)).isTrue();
    assertThat(tally.count(1.0)).isEqualTo(new BareReader.Count(5, 1, 1, 2, 1.0));
  }

  @Test
  void shouldNotBeDoneWhenTheInsertsWantedAreStillOpen() {
    BareReader.Tally tally = new BareReader.Tally();
    for (byte type : "BICBII".getBytes(java.nio.charset.StandardCharsets.US_ASCII)) {
      tally.accept(type);
    }
    assertThat(tally.done(3)).isFalse();
    assertThat(tally.done(1)).isFalse();
  }

  @Test
  void shouldReadTheFiguresTheChildPrints() {
    String log =
        "some driver warning\nbare-reader: messages=521 begins=10 commits=10 inserts=250"
            + " seconds=0.125 cpu=0.31 peak-rss=52428800\n";

    assertThat(BareReader.parse(log))
        .contains(
            new BareReader.ChildRun(
                new BareReader.Count(521, 10, 10, 250, 0.125), 0.31, 52_428_800L));
    assertThat(BareReader.parse("no figures")).isEmpty();
  }
}
