package io.herald.faults;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * The invariants of one round, after the fact, in Jepsen's model: every intent has a unique id (its
 * business key {@code tenant/article/revision/destination}); an acknowledged intent must end as
 * exactly one job, at least one event in Kafka, exactly one delivery and, once published, exactly
 * one remote article; revisions of one article reach one destination in commit order. A pure
 * function of what the round observed, so that each rule has its own unit test. Thread-safe
 * (stateless).
 */
final class Checker {

  /** The state a delivery ends in when the destination has the article. */
  static final String PUBLISHED = "PUBLISHED";

  /** The state of an item only an operator can settle. */
  static final String NEEDS_RECONCILIATION = "NEEDS_RECONCILIATION";

  private Checker() {}

  /** An intent the writer acknowledged (2xx) with its job id. */
  record Ack(String key, UUID jobId) {
    Ack {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(jobId, "jobId");
    }
  }

  /** A row of {@code writer.publication_job}. */
  record Job(UUID jobId, String key) {}

  /** One record of the publication topic: its {@code id} header and the job its payload names. */
  record Event(String id, UUID jobId) {}

  /**
   * A row of {@code consumer.delivery}; {@code seq} is the order of arrival from the partition,
   * which the relay keeps in the WAL's commit order.
   */
  record Delivery(
      UUID jobId, String key, String destination, String idempotencyKey, long seq, String state) {

    /** The article and destination whose revisions must arrive in order. */
    String stream() {
      String[] parts = key.split("/", -1);
      return parts[0] + "/" + parts[1] + "/" + destination;
    }
  }

  /** An article at the simulator, in the order it was created there. */
  record RemoteArticle(String externalReference, String remoteId) {}

  /**
   * What {@link #check} found.
   *
   * @param lost acknowledged intents without their job, event, delivery, published state or remote
   *     article, and jobs nobody acknowledged without their event
   * @param kafkaDuplicates records beyond the first of one event id (at-least-once, allowed)
   * @param duplicateEffects intents with more than one job, more than one event id (outbox row) or
   *     more than one delivery
   * @param duplicateRemoteArticles intents with more than one remote article at a destination that
   *     honours a key or can be looked up
   * @param duplicateRemoteArticlesNeither the same at a destination with neither (where no
   *     automatic re-send may happen either)
   * @param orderViolations revisions that reached their destination after a later-committed one
   * @param examples a few of the violations, named, for the report
   */
  record Result(
      int intents,
      int acknowledged,
      int published,
      int lost,
      int kafkaDuplicates,
      int duplicateEffects,
      int duplicateRemoteArticles,
      int duplicateRemoteArticlesNeither,
      int orderViolations,
      List<String> examples) {

    /** No lost intent, no duplicate effect or remote article, nothing out of order. */
    boolean clean() {
      return lost == 0
          && duplicateEffects == 0
          && duplicateRemoteArticles == 0
          && duplicateRemoteArticlesNeither == 0
          && orderViolations == 0;
    }
  }

  private static final int EXAMPLES = 10;

  /**
   * Checks one round.
   *
   * @param neither the destinations with neither idempotency key nor lookup
   * @param articles every article of the simulator in creation order (those of other rounds are
   *     ignored: their reference matches no delivery here)
   */
  static Result check(
      List<Ack> acks,
      List<Job> jobs,
      List<Event> events,
      List<Delivery> deliveries,
      List<RemoteArticle> articles,
      Set<String> neither) {
    List<String> examples = new ArrayList<>();

    Map<String, List<UUID>> jobsByKey = new HashMap<>();
    for (Job job : jobs) {
      jobsByKey.computeIfAbsent(job.key(), k -> new ArrayList<>()).add(job.jobId());
    }
    Map<UUID, Integer> eventsByJob = new HashMap<>();
    Map<String, Integer> copies = new HashMap<>();
    for (Event event : events) {
      eventsByJob.merge(event.jobId(), 1, Integer::sum);
      copies.merge(event.id(), 1, Integer::sum);
    }
    int kafkaDuplicates = copies.values().stream().mapToInt(n -> n - 1).sum();
    Map<UUID, List<Delivery>> deliveriesByJob = new HashMap<>();
    for (Delivery delivery : deliveries) {
      deliveriesByJob.computeIfAbsent(delivery.jobId(), k -> new ArrayList<>()).add(delivery);
    }
    Map<String, Integer> articlesByReference = new HashMap<>();
    for (RemoteArticle article : articles) {
      articlesByReference.merge(article.externalReference(), 1, Integer::sum);
    }

    Set<String> intents = new HashSet<>();
    int lost = 0;
    for (Ack ack : acks) {
      if (!intents.add(ack.key())) {
        continue; // a replay of an intent already counted
      }
      String why = lostBecause(ack, jobsByKey, eventsByJob, deliveriesByJob, articlesByReference);
      if (why != null) {
        lost++;
        example(examples, "lost " + ack.key() + " (job " + ack.jobId() + "): " + why);
      }
    }

    // A job committed without an acknowledgement (the answer was lost) must still reach Kafka.
    for (Job job : jobs) {
      if (!intents.contains(job.key()) && !eventsByJob.containsKey(job.jobId())) {
        lost++;
        example(examples, "lost " + job.key() + " (job " + job.jobId() + "): job without event");
      }
    }

    int duplicateEffects = 0;
    Map<UUID, Set<String>> eventIdsByJob = new HashMap<>();
    for (Event event : events) {
      eventIdsByJob.computeIfAbsent(event.jobId(), k -> new HashSet<>()).add(event.id());
    }
    for (Map.Entry<UUID, Set<String>> entry : eventIdsByJob.entrySet()) {
      if (entry.getValue().size() > 1) {
        duplicateEffects++;
        example(examples, "one job, several events: " + entry.getKey() + " " + entry.getValue());
      }
    }
    for (Map.Entry<String, List<UUID>> entry : jobsByKey.entrySet()) {
      if (entry.getValue().size() > 1) {
        duplicateEffects++;
        example(examples, "one intent, several jobs: " + entry.getKey() + " " + entry.getValue());
      }
    }
    for (Map.Entry<UUID, List<Delivery>> entry : deliveriesByJob.entrySet()) {
      if (entry.getValue().size() > 1) {
        duplicateEffects++;
        example(examples, "one job, several deliveries: " + entry.getKey());
      }
    }

    int duplicateRemote = 0;
    int duplicateRemoteNeither = 0;
    int published = 0;
    for (Delivery delivery : deliveries) {
      if (PUBLISHED.equals(delivery.state())) {
        published++;
      }
      int count = articlesByReference.getOrDefault(delivery.idempotencyKey(), 0);
      if (count > 1) {
        if (neither.contains(delivery.destination())) {
          duplicateRemoteNeither++;
        } else {
          duplicateRemote++;
        }
        example(
            examples,
            count + " remote articles for " + delivery.key() + " at " + delivery.destination());
      }
    }

    int orderViolations = orderViolations(deliveries, articles, examples);
    return new Result(
        intents.size(),
        acks.size(),
        published,
        lost,
        kafkaDuplicates,
        duplicateEffects,
        duplicateRemote,
        duplicateRemoteNeither,
        orderViolations,
        List.copyOf(examples));
  }

  private static String lostBecause(
      Ack ack,
      Map<String, List<UUID>> jobsByKey,
      Map<UUID, Integer> eventsByJob,
      Map<UUID, List<Delivery>> deliveriesByJob,
      Map<String, Integer> articlesByReference) {
    List<UUID> jobs = jobsByKey.getOrDefault(ack.key(), List.of());
    if (!jobs.contains(ack.jobId())) {
      return "no job with the acknowledged id";
    }
    if (!eventsByJob.containsKey(ack.jobId())) {
      return "no event in Kafka";
    }
    List<Delivery> deliveries = deliveriesByJob.getOrDefault(ack.jobId(), List.of());
    if (deliveries.isEmpty()) {
      return "no delivery";
    }
    Delivery delivery = deliveries.getFirst();
    if (!PUBLISHED.equals(delivery.state())) {
      return "delivery " + delivery.state();
    }
    if (articlesByReference.getOrDefault(delivery.idempotencyKey(), 0) == 0) {
      return "PUBLISHED but no remote article at " + delivery.destination();
    }
    return null;
  }

  /**
   * For each article and destination, the first remote article of each revision in the order the
   * simulator created them must follow the deliveries' commit order; each revision that arrived
   * before an earlier-committed one counts once.
   */
  private static int orderViolations(
      List<Delivery> deliveries, List<RemoteArticle> articles, List<String> examples) {
    Map<String, Delivery> byReference = new HashMap<>();
    for (Delivery delivery : deliveries) {
      byReference.put(delivery.idempotencyKey(), delivery);
    }
    Map<String, List<Delivery>> arrivals = new HashMap<>();
    Set<String> seen = new HashSet<>();
    for (RemoteArticle article : articles) {
      Delivery delivery = byReference.get(article.externalReference());
      if (delivery != null && seen.add(article.externalReference())) {
        arrivals.computeIfAbsent(delivery.stream(), k -> new ArrayList<>()).add(delivery);
      }
    }
    int violations = 0;
    for (Map.Entry<String, List<Delivery>> stream : arrivals.entrySet()) {
      long highest = Long.MIN_VALUE;
      for (Delivery delivery : stream.getValue()) {
        if (delivery.seq() < highest) {
          violations++;
          example(
              examples,
              "out of order at "
                  + stream.getKey()
                  + ": "
                  + delivery.key()
                  + " arrived after a later revision; arrival order "
                  + stream.getValue().stream()
                      .map(d -> d.key().split("/", -1)[2] + "#" + d.seq())
                      .toList());
        }
        highest = Math.max(highest, delivery.seq());
      }
    }
    return violations;
  }

  private static void example(List<String> examples, String text) {
    if (examples.size() < EXAMPLES) {
      examples.add(text);
    }
  }

  /**
   * At a destination with neither key nor lookup, an item whose article exists there but which the
   * consumer did not record as published is ambiguous to the consumer: it must wait for an operator
   * (NEEDS_RECONCILIATION). Any other state means it could be re-sent, or is stuck. Returns those
   * ambiguous items in another state, named.
   */
  static List<String> ambiguousNotParked(
      List<Delivery> deliveries, List<RemoteArticle> articles, Set<String> neither) {
    Set<String> references = new HashSet<>();
    for (RemoteArticle article : articles) {
      references.add(article.externalReference());
    }
    List<String> wrong = new ArrayList<>();
    for (Delivery delivery : deliveries) {
      if (neither.contains(delivery.destination())
          && references.contains(delivery.idempotencyKey())
          && !PUBLISHED.equals(delivery.state())
          && !NEEDS_RECONCILIATION.equals(delivery.state())) {
        wrong.add(delivery.key() + " is " + delivery.state());
      }
    }
    return wrong;
  }
}
