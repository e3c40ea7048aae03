package io.herald.devstack.simulator;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The simulated destination's storage. Thread-safe: every method is synchronized, so the
 * idempotency check and the creation are one atomic step, as a real API's unique index makes them.
 */
final class ArticleStore {

  /** What a create request produced: the article and whether it is new. */
  record Creation(Article article, boolean created) {}

  private final Clock clock;
  private final List<Article> articles = new ArrayList<>();
  private final Map<String, Article> byIdempotencyKey = new HashMap<>();
  private final Map<String, Integer> createRequestsByKey = new HashMap<>();
  private long nextId = 1;

  ArticleStore(Clock clock) {
    this.clock = clock;
  }

  synchronized void countRequest(String idempotencyKey) {
    if (idempotencyKey != null) {
      createRequestsByKey.merge(idempotencyKey, 1, Integer::sum);
    }
  }

  synchronized Creation create(
      String idempotencyKey, String externalReference, String body, boolean honourKey) {
    if (honourKey && idempotencyKey != null) {
      Article existing = byIdempotencyKey.get(idempotencyKey);
      if (existing != null) {
        return new Creation(existing, false);
      }
    }
    Article article =
        new Article("art-" + nextId++, externalReference, idempotencyKey, body, clock.instant());
    articles.add(article);
    if (idempotencyKey != null) {
      byIdempotencyKey.putIfAbsent(idempotencyKey, article);
    }
    return new Creation(article, true);
  }

  /** The first article created with this external reference, as a lookup API would answer. */
  synchronized Optional<Article> findByExternalReference(String externalReference) {
    return articles.stream()
        .filter(a -> externalReference.equals(a.externalReference()))
        .findFirst();
  }

  synchronized int countByExternalReference(String externalReference) {
    return (int)
        articles.stream().filter(a -> externalReference.equals(a.externalReference())).count();
  }

  synchronized int createRequests(String idempotencyKey) {
    return createRequestsByKey.getOrDefault(idempotencyKey, 0);
  }

  synchronized List<Article> all() {
    return List.copyOf(articles);
  }

  synchronized void clear() {
    articles.clear();
    byIdempotencyKey.clear();
    createRequestsByKey.clear();
  }
}
