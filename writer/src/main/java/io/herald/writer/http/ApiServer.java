package io.herald.writer.http;

import io.herald.runtime.http.JsonErrorHandler;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Objects;
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
 * nothing (a stalled header or body read) for {@code idleTimeout}; request headers are limited to 8
 * KiB; a {@link QoSHandler} lets at most {@code maxConcurrentRequests} requests run (each may hold
 * a database connection), parks up to {@code maxQueuedRequests} more without holding a thread for
 * at most {@code maxQueueWait}, and answers the rest 503 with {@code Retry-After}; the API handler
 * bounds the body size. On close, requests in flight get {@code stopTimeout} to finish.
 */
public final class ApiServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ApiServer.class);

  /** Threads beyond the request limit for Jetty's acceptor, selectors and reserved threads. */
  private static final int THREAD_HEADROOM = 16;

  /**
   * @param host interface to bind; {@code 0.0.0.0} for all
   * @param port TCP port; 0 picks a free one (tests)
   */
  public record Settings(
      String host,
      int port,
      Duration idleTimeout,
      int maxConcurrentRequests,
      int maxQueuedRequests,
      Duration maxQueueWait,
      Duration retryAfter,
      Duration stopTimeout) {
    public Settings {
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(idleTimeout, "idleTimeout");
      Objects.requireNonNull(maxQueueWait, "maxQueueWait");
      Objects.requireNonNull(retryAfter, "retryAfter");
      Objects.requireNonNull(stopTimeout, "stopTimeout");
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("API port must be 0..65535, was " + port);
      }
      if (maxConcurrentRequests < 1 || maxQueuedRequests < 0) {
        throw new IllegalArgumentException(
            "maxConcurrentRequests must be positive and maxQueuedRequests not negative, were "
                + maxConcurrentRequests
                + " and "
                + maxQueuedRequests);
      }
    }
  }

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
    connector.setIdleTimeout(settings.idleTimeout().toMillis());
    server.addConnector(connector);

    QoSHandler limiter = new QoSHandler(api);
    limiter.setMaxRequestCount(settings.maxConcurrentRequests());
    limiter.setMaxSuspendedRequestCount(settings.maxQueuedRequests());
    limiter.setMaxSuspend(settings.maxQueueWait());
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
        settings.maxQueueWait(),
        settings.idleTimeout());
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
