package io.herald.consumer.destination;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A response body read into a string of at most {@link #MAX_BYTES}. A destination's answer carries
 * an id and an error message; an answer larger than that is a misbehaving destination, and reading
 * all of it would let one answer take the consumer's heap. Past the limit the subscription is
 * cancelled (the connection is dropped) and the body fails with {@link TooLarge}, an {@link
 * IOException}: the request was sent and its answer could not be read, so the outcome is uncertain.
 */
final class BoundedBody implements HttpResponse.BodySubscriber<String> {

  /** Far above any id-and-message answer, far below what a heap notices. */
  static final int MAX_BYTES = 256 * 1024;

  /** The answer was larger than {@link #MAX_BYTES}. */
  static final class TooLarge extends IOException {
    TooLarge(long seen) {
      super("answer larger than " + MAX_BYTES + " bytes (" + seen + " read before giving up)");
    }
  }

  private final CompletableFuture<String> result = new CompletableFuture<>();
  // Grows with the answer, so the usual answer of a few hundred bytes costs a few hundred bytes.
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(512);
  private long seen;
  private Flow.Subscription subscription;

  /** The handler for {@code HttpClient.send}: every answer read through a fresh bounded body. */
  static HttpResponse.BodyHandler<String> handler() {
    return info -> new BoundedBody();
  }

  @Override
  public CompletionStage<String> getBody() {
    return result;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    this.subscription = subscription;
    subscription.request(Long.MAX_VALUE);
  }

  @Override
  public void onNext(List<ByteBuffer> items) {
    if (result.isDone()) {
      return;
    }
    for (ByteBuffer item : items) {
      int remaining = item.remaining();
      seen += remaining;
      if (buffer.size() + remaining > MAX_BYTES) {
        subscription.cancel();
        result.completeExceptionally(new TooLarge(seen));
        return;
      }
      byte[] bytes = new byte[remaining];
      item.get(bytes);
      buffer.write(bytes, 0, remaining);
    }
  }

  @Override
  public void onError(Throwable failure) {
    result.completeExceptionally(failure);
  }

  @Override
  public void onComplete() {
    result.complete(buffer.toString(StandardCharsets.UTF_8));
  }
}
