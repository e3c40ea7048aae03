package io.herald.devstack.simulator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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

  private record SavedError(int status, Instant at) {}

  private final Clock clock;
  private final List<Article> articles = new ArrayList<>();
  private final Map<String, Article> byIdempotencyKey = new HashMap<>();
  private final Map<String, Integer> createRequestsByKey = new HashMap<>();
  private final Map<String, SavedError> savedErrors = new HashMap<>();
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
    return create(idempotencyKey, externalReference, body, honourKey, Duration.ZERO);
  }

  /**
   * Creates an article, or returns the one an honoured key created within {@code keyWindow} ({@code
   * ZERO}: for ever). A key older than the window is forgotten: the request creates a new article,
   * which the key then names.
   */
  synchronized Creation create(
      String idempotencyKey,
      String externalReference,
      String body,
      boolean honourKey,
      Duration keyWindow) {
    if (honourKey && idempotencyKey != null) {
      Article existing = remembered(idempotencyKey, keyWindow);
      if (existing != null) {
        return new Creation(existing, false);
      }
    }
    Article article =
        new Article("art-" + nextId++, externalReference, idempotencyKey, body, clock.instant());
    articles.add(article);
    if (idempotencyKey != null) {
      Article earlier = byIdempotencyKey.get(idempotencyKey);
      if (earlier == null || !remembers(earlier.createdAt(), keyWindow)) {
        byIdempotencyKey.put(idempotencyKey, article);
      }
    }
    return new Creation(article, true);
  }

  /** The article {@code idempotencyKey} created, if the key is still within {@code keyWindow}. */
  synchronized Article remembered(String idempotencyKey, Duration keyWindow) {
    Article existing = byIdempotencyKey.get(idempotencyKey);
    return existing != null && remembers(existing.createdAt(), keyWindow) ? existing : null;
  }

  /** Saves the error answered to a keyed request, for a destination that replays errors. */
  synchronized void saveError(String idempotencyKey, int status) {
    savedErrors.putIfAbsent(idempotencyKey, new SavedError(status, clock.instant()));
  }

  /** The error saved for {@code idempotencyKey} within {@code keyWindow}, or null. */
  synchronized Integer savedError(String idempotencyKey, Duration keyWindow) {
    SavedError saved = savedErrors.get(idempotencyKey);
    return saved != null && remembers(saved.at(), keyWindow) ? saved.status() : null;
  }

  private boolean remembers(Instant since, Duration keyWindow) {
    return keyWindow.isZero() || clock.instant().isBefore(since.plus(keyWindow));
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

  synchronized List<Article> from(int index) {
    if (index > articles.size()) {
      throw new IllegalStateException(
          "asked for articles from "
              + index
              + " of "
              + articles.size()
              + ": the store was cleared");
    }
    return List.copyOf(articles.subList(index, articles.size()));
  }

  synchronized void clear() {
    articles.clear();
    byIdempotencyKey.clear();
    createRequestsByKey.clear();
    savedErrors.clear();
  }
}
