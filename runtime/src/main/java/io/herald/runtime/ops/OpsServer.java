package io.herald.runtime.ops;

import io.herald.runtime.http.JsonErrorHandler;
import io.herald.runtime.http.Router;
import io.herald.runtime.metrics.Metrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.BlockingArrayQueue;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server of a Herald process (Jetty 12 core handlers, no servlets): {@code GET /health}
 * and {@code GET /metrics}, plus any handlers the process mounts (the consumer's operator API, when
 * an operator token is set; the writer serves its API on a server of its own, on another port).
 *
 * <ul>
 *   <li>{@code /health}: runs every {@link HealthCheck}; 200 when all are up, 503 otherwise; body
 *       {@code {"status":"UP|DOWN","process":"writer","checks":{"database":{"status":"UP",
 *       "detail":"..."}}}}. A check that throws counts as DOWN.
 *   <li>{@code /metrics}: the Prometheus text of the registry ({@value
 *       Metrics#PROMETHEUS_CONTENT_TYPE}).
 *   <li>Other paths go to the mounted handlers in order; nothing matching answers 404.
 * </ul>
 *
 * <p>Threads are bounded ({@code maxThreads}) and so is the queue of waiting requests; {@link
 * #close()} stops accepting connections, lets requests in flight finish for up to {@code
 * stopTimeout}, then stops. Thread-safe.
 *
 * <pre>{@code
 * OpsServer ops = OpsServer.builder("relay", registry).port(8082).healthCheck(slotCheck).start();
 * }</pre>
 */
public final class OpsServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OpsServer.class);

  private final String process;
  private final Server server;
  private final ServerConnector connector;
  private final List<HealthCheck> checks;

  private OpsServer(Builder builder) {
    this.process = builder.process;
    this.checks = new CopyOnWriteArrayList<>(builder.checks);
    QueuedThreadPool threads =
        new QueuedThreadPool(
            builder.maxThreads,
            Math.min(builder.maxThreads, 4),
            60_000,
            new BlockingArrayQueue<>(builder.maxQueuedRequests));
    threads.setName(process + "-http");
    server = new Server(threads);
    connector = new ServerConnector(server, 1, 1);
    connector.setHost(builder.host);
    connector.setPort(builder.port);
    connector.setIdleTimeout(builder.idleTimeout.toMillis());
    server.addConnector(connector);
    List<Handler> handlers = new ArrayList<>();
    handlers.add(opsRoutes(builder.registry));
    handlers.addAll(builder.handlers);
    server.setHandler(new GracefulHandler(new Handler.Sequence(handlers)));
    server.setErrorHandler(new JsonErrorHandler(builder.retryAfter));
    server.setStopTimeout(builder.stopTimeout.toMillis());
    server.setStopAtShutdown(false); // ProcessLifecycle owns the shutdown order
  }

  /** A builder for the server of {@code process}, exposing {@code registry} on /metrics. */
  public static Builder builder(String process, PrometheusMeterRegistry registry) {
    return new Builder(process, registry);
  }

  /** Adds a health check to the running server. */
  public void addHealthCheck(HealthCheck check) {
    checks.add(Objects.requireNonNull(check, "check"));
  }

  /** The bound port (useful with port 0). */
  public int port() {
    return connector.getLocalPort();
  }

  /** {@code http://host:port} as a client on this machine reaches it. */
  public URI uri() {
    String host = connector.getHost();
    if (host == null || host.equals("0.0.0.0") || host.equals("::")) {
      host = "localhost";
    }
    return URI.create("http://" + host + ":" + port());
  }

  /** Stops gracefully: no new connections, in-flight requests finish within the stop timeout. */
  @Override
  public void close() throws Exception {
    server.stop();
    log.info("{}: HTTP server on port {} stopped", process, connector.getPort());
  }

  private void start() {
    try {
      server.start();
    } catch (Exception e) {
      try {
        server.stop();
      } catch (Exception stopFailure) {
        e.addSuppressed(stopFailure);
      }
      throw new IllegalStateException(
          process
              + ": cannot start HTTP server on "
              + connector.getHost()
              + ":"
              + connector.getPort(),
          e);
    }
    log.info("{}: HTTP server listening on {}", process, uri());
  }

  /** The {@code /health} body, written by Jackson. */
  record HealthReport(String status, String process, Map<String, CheckResult> checks) {}

  /** One check's result in {@link HealthReport}. */
  record CheckResult(String status, String detail) {}

  private Router.Reply health() {
    Map<String, CheckResult> results = new LinkedHashMap<>();
    boolean allUp = true;
    for (HealthCheck check : checks) {
      HealthCheck.Status status;
      try {
        status = check.check();
      } catch (RuntimeException e) {
        log.warn("{}: health check {} failed", process, check.name(), e);
        status = HealthCheck.Status.down(e.getClass().getSimpleName() + ": " + e.getMessage());
      }
      allUp &= status.up();
      results.put(check.name(), new CheckResult(status.up() ? "UP" : "DOWN", status.detail()));
    }
    return Router.Reply.json(
        allUp ? HttpStatus.OK_200 : HttpStatus.SERVICE_UNAVAILABLE_503,
        new HealthReport(allUp ? "UP" : "DOWN", process, results));
  }

  /** Serves /health and /metrics; declines every other path. */
  private Router opsRoutes(PrometheusMeterRegistry registry) {
    return Router.builder(process + " ops")
        .get("/health", call -> health())
        .get(
            "/metrics",
            call ->
                Router.Reply.text(
                    HttpStatus.OK_200, Metrics.PROMETHEUS_CONTENT_TYPE, registry.scrape()))
        .build();
  }

  /** Settings of an {@link OpsServer}; not thread-safe. */
  public static final class Builder {
    private final String process;
    private final PrometheusMeterRegistry registry;
    private final List<HealthCheck> checks = new ArrayList<>();
    private final List<Handler> handlers = new ArrayList<>();
    private String host = "0.0.0.0";
    private int port = 0;
    private int maxThreads = 32;
    private int maxQueuedRequests = 256;
    private Duration idleTimeout = Duration.ofSeconds(30);
    private Duration stopTimeout = Duration.ofSeconds(10);
    private Duration retryAfter = Duration.ofSeconds(1);

    private Builder(String process, PrometheusMeterRegistry registry) {
      this.process = Objects.requireNonNull(process, "process");
      this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** Interface and port to bind, as configured. */
    public Builder endpoint(OpsEndpoint endpoint) {
      return host(endpoint.host()).port(endpoint.port());
    }

    /** Interface to bind; default {@code 0.0.0.0}. */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** Port to bind; 0 (the default) picks a free one. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port out of range: " + port);
      }
      this.port = port;
      return this;
    }

    /** Most request threads (default 32; Jetty needs a few of them for its selector/acceptor). */
    public Builder maxThreads(int maxThreads) {
      if (maxThreads < 8) {
        throw new IllegalArgumentException("maxThreads must be at least 8: " + maxThreads);
      }
      this.maxThreads = maxThreads;
      return this;
    }

    /** Most requests waiting for a thread (default 256); beyond that Jetty rejects work. */
    public Builder maxQueuedRequests(int maxQueuedRequests) {
      if (maxQueuedRequests < 1) {
        throw new IllegalArgumentException(
            "maxQueuedRequests must be at least 1: " + maxQueuedRequests);
      }
      this.maxQueuedRequests = maxQueuedRequests;
      return this;
    }

    /** Idle time after which a silent connection is closed (default 30s). */
    public Builder idleTimeout(Duration idleTimeout) {
      this.idleTimeout = Objects.requireNonNull(idleTimeout, "idleTimeout");
      return this;
    }

    /** How long {@link OpsServer#close()} lets in-flight requests finish (default 10s). */
    public Builder stopTimeout(Duration stopTimeout) {
      this.stopTimeout = Objects.requireNonNull(stopTimeout, "stopTimeout");
      return this;
    }

    /** What a 503 Jetty answers itself (overload) tells clients to wait (default 1s). */
    public Builder retryAfter(Duration retryAfter) {
      this.retryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
      return this;
    }

    /** Adds a check to {@code /health}. */
    public Builder healthCheck(HealthCheck check) {
      checks.add(Objects.requireNonNull(check, "check"));
      return this;
    }

    /**
     * Mounts a handler for other paths; handlers are asked in the order added and return {@code
     * false} for requests they do not serve.
     */
    public Builder handler(Handler handler) {
      handlers.add(Objects.requireNonNull(handler, "handler"));
      return this;
    }

    /** Builds and starts the server. */
    public OpsServer start() {
      OpsServer server = new OpsServer(this);
      server.start();
      return server;
    }
  }
}
