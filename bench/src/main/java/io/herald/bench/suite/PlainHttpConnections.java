package io.herald.bench.suite;

import java.io.IOException;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * Keep-alive {@link PlainHttpClient} connections to one server, shared by any number of concurrent
 * senders (an open-loop load sends each request from its own virtual thread): a send takes an idle
 * connection or opens one, and gives it back once answered. A connection idle longer than {@link
 * #MAX_IDLE_NANOS} is closed instead of reused, well before a server's idle timeout (the writer's
 * is {@code writer.http.read-timeout}, 30 s by default) could close it under a request.
 */
public final class PlainHttpConnections implements AutoCloseable {

  private static final long MAX_IDLE_NANOS = 5_000_000_000L;

  private record Idle(PlainHttpClient client, long since) {}

  private final String host;
  private final int port;
  private final ConcurrentLinkedDeque<Idle> idle = new ConcurrentLinkedDeque<>();

  public PlainHttpConnections(String host, int port) {
    this.host = host;
    this.port = port;
  }

  /** POSTs on an idle connection or a new one. A connection that failed is closed, never reused. */
  public PlainHttpClient.Response post(String path, String token, String json) throws IOException {
    PlainHttpClient client = take();
    try {
      PlainHttpClient.Response response = client.post(path, token, json);
      if (client.isOpen()) {
        // Last in, first out: the most recently used connections stay warm, the rest age out.
        idle.addFirst(new Idle(client, System.nanoTime()));
      }
      return response;
    } catch (IOException | RuntimeException e) {
      closeQuietly(client, e);
      throw e;
    }
  }

  private PlainHttpClient take() throws IOException {
    long now = System.nanoTime();
    for (Idle next = idle.pollFirst(); next != null; next = idle.pollFirst()) {
      if (now - next.since() < MAX_IDLE_NANOS) {
        return next.client();
      }
      next.client().close();
    }
    return new PlainHttpClient(host, port);
  }

  private static void closeQuietly(PlainHttpClient client, Exception cause) {
    try {
      client.close();
    } catch (IOException e) {
      cause.addSuppressed(e);
    }
  }

  @Override
  public void close() throws IOException {
    for (Idle next = idle.pollFirst(); next != null; next = idle.pollFirst()) {
      next.client().close();
    }
  }
}
