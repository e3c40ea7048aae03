package io.herald.writer.http;

import io.herald.runtime.http.JsonErrorHandler;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Jetty 12 server that carries the API, on its own port, apart from the ops server ({@code
 * /health}, {@code /metrics}): the API can be exposed to clients while health and metrics stay on
 * an internal port, and a flood of API requests cannot starve the health check.
 *
 * <p>Protections, in request order: the connector's idle timeout ends a connection that sends
 * nothing (a stalled header or body read) for {@code readTimeout}; request headers are limited to 8
 * KiB; a {@link QoSHandler} lets at most {@code maxConcurrentRequests} requests run (each may hold
 * a database connection), parks up to {@code maxQueuedRequests} more without holding a thread for
 * at most {@code queueTimeout}, and answers the rest 503 with {@code Retry-After}; the API handler
 * bounds the body size. On close, requests in flight get {@code stopTimeout} to finish.
 */
public final class ApiServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ApiServer.class);

  /** Threads beyond the request limit for Jetty's acceptor, selectors and reserved threads. */
  private static final int THREAD_HEADROOM = 16;

  /**
   * The server's settings, validated by {@code WriterConfig}, where the keys are defined.
   *
   * @param host {@code writer.http.host}: interface to bind; {@code 0.0.0.0} for all
   * @param port {@code writer.http.port}: TCP port; 0 picks a free one (tests)
   * @param readTimeout {@code writer.http.read-timeout}: the connector's idle timeout
   * @param maxConcurrentRequests {@code writer.http.max-concurrent-requests}
   * @param maxQueuedRequests {@code writer.http.max-queued-requests}
   * @param queueTimeout {@code writer.http.queue-timeout}: longest wait for a concurrent slot
   * @param retryAfter {@code writer.http.retry-after}: what a 503 tells clients to wait
   * @param stopTimeout how long requests in flight get to finish on close
   */
  public record Settings(
      String host,
      int port,
      Duration readTimeout,
      int maxConcurrentRequests,
      int maxQueuedRequests,
      Duration queueTimeout,
      Duration retryAfter,
      Duration stopTimeout) {}

  private final Server server;
  private final ServerConnector connector;

  private ApiServer(Server server, ServerConnector connector) {
    this.server = server;
    this.connector = connector;
  }

  public static ApiServer start(Handler api, Settings settings, MeterRegistry registry)
      throws Exception {
    QueuedThreadPool threads =
        new QueuedThreadPool(settings.maxConcurrentRequests() + THREAD_HEADROOM, 4);
    threads.setName("herald-api");
    Server server = new Server(threads);

    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    http.setRequestHeaderSize(8 * 1024);
    ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
    connector.setHost(settings.host());
    connector.setPort(settings.port());
    connector.setIdleTimeout(settings.readTimeout().toMillis());
    // The kernel's queue of connections not yet accepted, as long as the requests the writer may
    // hold: Jetty's default leaves the JVM's 50, and a burst of new connections beyond it (clients
    // opening one per request while the writer is busy) has its SYNs dropped, each retried by the
    // client only after a second (B5: one-second stalls at 800 intents/s, the kernel's
    // ListenOverflows counting them; ApiServerBacklogTest freezes a server and counts what queues).
    connector.setAcceptQueueSize(settings.maxConcurrentRequests() + settings.maxQueuedRequests());
    server.addConnector(connector);

    QoSHandler limiter = new QoSHandler(api);
    limiter.setMaxRequestCount(settings.maxConcurrentRequests());
    limiter.setMaxSuspendedRequestCount(settings.maxQueuedRequests());
    limiter.setMaxSuspend(settings.queueTimeout());
    GracefulHandler graceful = new GracefulHandler(limiter);
    server.setHandler(graceful);
    server.setErrorHandler(new JsonErrorHandler(settings.retryAfter()));
    server.setStopTimeout(settings.stopTimeout().toMillis());
    server.setStopAtShutdown(false); // the process lifecycle orders shutdown

    Gauge.builder("herald.writer.http.active", graceful, GracefulHandler::getCurrentRequestCount)
        .description("API requests in progress")
        .register(registry);
    Gauge.builder("herald.writer.http.queued", limiter, QoSHandler::getSuspendedRequestCount)
        .description("API requests waiting for a free slot")
        .register(registry);
    FunctionCounter.builder(
            "herald.writer.http.rejected",
            limiter,
            q -> q.getTotalExceededRequestCount() + q.getTotalExpiredRequestCount())
        .description("API requests answered 503 because the concurrency limit was reached")
        .register(registry);

    server.start();
    log.info(
        "Writer API listening on {}:{} (at most {} requests at once, {} queued for up to {}; idle"
            + " timeout {})",
        settings.host(),
        connector.getLocalPort(),
        settings.maxConcurrentRequests(),
        settings.maxQueuedRequests(),
        settings.queueTimeout(),
        settings.readTimeout());
    return new ApiServer(server, connector);
  }

  /** The bound port (the chosen one when the settings said 0). */
  public int port() {
    return connector.getLocalPort();
  }

  /** Stops accepting, lets requests in flight finish within the stop timeout, then stops. */
  @Override
  public void close() {
    try {
      server.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping the API server", e);
    } catch (Exception e) {
      throw new IllegalStateException("stopping the API server failed", e);
    }
  }
}
