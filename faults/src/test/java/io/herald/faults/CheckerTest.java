package io.herald.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.faults.Checker.Ack;
import io.herald.faults.Checker.Delivery;
import io.herald.faults.Checker.Event;
import io.herald.faults.Checker.Job;
import io.herald.faults.Checker.RemoteArticle;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CheckerTest {

  private static final Set<String> NEITHER = Set.of("dest-b");

  private final UUID job1 = UUID.randomUUID();
  private final UUID job2 = UUID.randomUUID();
  private final String key1 = "t1/s-1/r-1/dest-a";
  private final String key2 = "t1/s-1/r-2/dest-a";

  private Delivery delivery(UUID job, String key, long seq, String state) {
    return new Delivery(job, key, key.split("/")[3], "ref-" + key, seq, state);
  }

  private List<Job> jobs() {
    return List.of(new Job(job1, key1), new Job(job2, key2));
  }

  private List<Ack> acks() {
    return List.of(new Ack(key1, job1), new Ack(key2, job2));
  }

  @Test
  void shouldFindNothingWhenEveryIntentIsPublishedOnceInOrder() {
    Checker.Result result =
        Checker.check(
            acks(),
            jobs(),
            List.of(new Event("e1", job1), new Event("e2", job2)),
            List.of(delivery(job1, key1, 1, "PUBLISHED"), delivery(job2, key2, 2, "PUBLISHED")),
            List.of(new RemoteArticle("ref-" + key1, "a1"), new RemoteArticle("ref-" + key2, "a2")),
            NEITHER);

    assertThat(result.clean()).as(result.examples().toString()).isTrue();
    assertThat(result.intents()).isEqualTo(2);
    assertThat(result.published()).isEqualTo(2);
  }

  @Test
  void shouldCountAnAcknowledgedIntentLostWhenItsEventNeverReachedKafka() {
    Checker.Result result =
        Checker.check(
            acks(),
            jobs(),
            List.of(new Event("e1", job1)),
            List.of(delivery(job1, key1, 1, "PUBLISHED")),
            List.of(new RemoteArticle("ref-" + key1, "a1")),
            NEITHER);

    assertThat(result.lost()).isEqualTo(1);
    assertThat(result.examples()).singleElement().asString().contains(key2, "no event in Kafka");
  }

  @Test
  void shouldCountAnIntentLostWhenPublishedWithoutARemoteArticle() {
    Checker.Result result =
        Checker.check(
            List.of(new Ack(key1, job1)),
            List.of(new Job(job1, key1)),
            List.of(new Event("e1", job1)),
            List.of(delivery(job1, key1, 1, "PUBLISHED")),
            List.of(),
            NEITHER);

    assertThat(result.lost()).isEqualTo(1);
    assertThat(result.examples().getFirst()).contains("no remote article");
  }

  @Test
  void shouldCountKafkaDuplicatesWithoutCallingThemAViolation() {
    Checker.Result result =
        Checker.check(
            List.of(new Ack(key1, job1), new Ack(key1, job1)),
            List.of(new Job(job1, key1)),
            List.of(new Event("e1", job1), new Event("e1", job1), new Event("e1", job1)),
            List.of(delivery(job1, key1, 1, "PUBLISHED")),
            List.of(new RemoteArticle("ref-" + key1, "a1")),
            NEITHER);

    assertThat(result.kafkaDuplicates()).isEqualTo(2);
    assertThat(result.intents()).isEqualTo(1);
    assertThat(result.acknowledged()).isEqualTo(2);
    assertThat(result.clean()).isTrue();
  }

  @Test
  void shouldCountDuplicateRemoteArticlesApartForTheDestinationWithNeither() {
    String keyB = "t1/s-2/r-1/dest-b";
    UUID jobB = UUID.randomUUID();
    Checker.Result result =
        Checker.check(
            List.of(new Ack(key1, job1), new Ack(keyB, jobB)),
            List.of(new Job(job1, key1), new Job(jobB, keyB)),
            List.of(new Event("e1", job1), new Event("e2", jobB)),
            List.of(delivery(job1, key1, 1, "PUBLISHED"), delivery(jobB, keyB, 2, "PUBLISHED")),
            List.of(
                new RemoteArticle("ref-" + key1, "a1"),
                new RemoteArticle("ref-" + key1, "a2"),
                new RemoteArticle("ref-" + keyB, "b1"),
                new RemoteArticle("ref-" + keyB, "b2")),
            NEITHER);

    assertThat(result.duplicateRemoteArticles()).isEqualTo(1);
    assertThat(result.duplicateRemoteArticlesNeither()).isEqualTo(1);
    assertThat(result.clean()).isFalse();
  }

  @Test
  void shouldCountAnOrderViolationWhenALaterRevisionReachedTheDestinationFirst() {
    Checker.Result result =
        Checker.check(
            acks(),
            jobs(),
            List.of(new Event("e1", job1), new Event("e2", job2)),
            List.of(delivery(job1, key1, 1, "PUBLISHED"), delivery(job2, key2, 2, "PUBLISHED")),
            List.of(new RemoteArticle("ref-" + key2, "a2"), new RemoteArticle("ref-" + key1, "a1")),
            NEITHER);

    assertThat(result.orderViolations()).isEqualTo(1);
    assertThat(result.examples().getFirst()).contains("out of order at t1/s-1/dest-a");
  }

  @Test
  void shouldNotCountRevisionsAtOtherDestinationsAsReordered() {
    String keyOther = "t1/s-1/r-1/dest-c";
    UUID jobOther = UUID.randomUUID();
    Checker.Result result =
        Checker.check(
            List.of(new Ack(key2, job2), new Ack(keyOther, jobOther)),
            List.of(new Job(job2, key2), new Job(jobOther, keyOther)),
            List.of(new Event("e2", job2), new Event("e3", jobOther)),
            List.of(
                delivery(jobOther, keyOther, 1, "PUBLISHED"), delivery(job2, key2, 2, "PUBLISHED")),
            List.of(
                new RemoteArticle("ref-" + key2, "a2"), new RemoteArticle("ref-" + keyOther, "c1")),
            NEITHER);

    assertThat(result.orderViolations()).isZero();
  }

  @Test
  void shouldCountTwoJobsForOneIntentAsADuplicateEffect() {
    UUID other = UUID.randomUUID();
    Checker.Result result =
        Checker.check(
            List.of(new Ack(key1, job1)),
            List.of(new Job(job1, key1), new Job(other, key1)),
            List.of(new Event("e1", job1)),
            List.of(delivery(job1, key1, 1, "PUBLISHED")),
            List.of(new RemoteArticle("ref-" + key1, "a1")),
            NEITHER);

    assertThat(result.duplicateEffects()).isEqualTo(1);
  }

  @Test
  void shouldNameAnAmbiguousItemAtTheDestinationWithNeitherUnlessItWaitsForAnOperator() {
    String parked = "t1/s-3/r-1/dest-b";
    String wrong = "t1/s-4/r-1/dest-b";
    String notSent = "t1/s-5/r-1/dest-b";
    List<Delivery> deliveries =
        List.of(
            delivery(UUID.randomUUID(), parked, 1, "NEEDS_RECONCILIATION"),
            delivery(UUID.randomUUID(), wrong, 2, "RETRY_WAIT"),
            delivery(UUID.randomUUID(), notSent, 3, "RETRY_WAIT"),
            delivery(UUID.randomUUID(), key1, 4, "RETRY_WAIT"));
    List<RemoteArticle> articles =
        List.of(
            new RemoteArticle("ref-" + parked, "b1"),
            new RemoteArticle("ref-" + wrong, "b2"),
            new RemoteArticle("ref-" + key1, "a1"));

    assertThat(Checker.ambiguousNotParked(deliveries, articles, NEITHER))
        .containsExactly(wrong + " is RETRY_WAIT");
  }

  @Test
  void shouldCountAJobNobodyAcknowledgedLostWhenItHasNoEvent() {
    Checker.Result result =
        Checker.check(
            List.of(new Ack(key1, job1)),
            jobs(),
            List.of(new Event("e1", job1)),
            List.of(delivery(job1, key1, 1, "PUBLISHED")),
            List.of(new RemoteArticle("ref-" + key1, "a1")),
            NEITHER);

    assertThat(result.lost()).isEqualTo(1);
    assertThat(result.examples().getFirst()).contains(key2, "job without event");
  }

  @Test
  void shouldCountTwoEventIdsForOneJobAsADuplicateEffect() {
    Checker.Result result =
        Checker.check(
            List.of(new Ack(key1, job1)),
            List.of(new Job(job1, key1)),
            List.of(new Event("e1", job1), new Event("e9", job1)),
            List.of(delivery(job1, key1, 1, "PUBLISHED")),
            List.of(new RemoteArticle("ref-" + key1, "a1")),
            NEITHER);

    assertThat(result.duplicateEffects()).isEqualTo(1);
    assertThat(result.kafkaDuplicates()).isZero();
  }
}
