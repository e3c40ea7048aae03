package io.herald.writer.status;

import io.herald.common.json.Json;
import io.herald.runtime.inbox.InboxSettings;
import io.herald.runtime.ops.HealthCheck;
import io.herald.writer.metrics.StatusMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The writer's status view: follows the consumer's status events ({@code herald.delivery.events})
 * and keeps {@code writer.publication_job.status} and {@code remote_id} up to date, so {@code GET
 * /v1/publications/{jobId}} shows the latest delivery status. {@code writer.inbox} is purged after
 * its retention window by the writer's {@code RetentionPurger}.
 *
 * <p>Each event is applied at most once (the {@code writer.inbox} row and the job change commit in
 * one transaction) and never moves a job backwards (an event older than the one the job shows is
 * ignored). The view is eventually consistent and never fatal: with Kafka unreachable the API keeps
 * serving, statuses lag, and {@link #healthCheck()} reports it.
 *
 * <pre>{@code
 * StatusView view = lifecycle.register("status view",
 *     StatusView.start(config.status().orElseThrow(), pool, clock, registry));
 * ops.addHealthCheck(view.healthCheck());
 * }</pre>
 *
 * <p>Thread-safe. {@link #close()} stops the listener (the in-flight batch commits or rolls back);
 * call it before closing the pool.
 */
public final class StatusView implements AutoCloseable {

  /** The name of the check on {@code /health}. */
  public static final String HEALTH_CHECK = "status-view";

  private final StatusListener listener;

  private StatusView(StatusListener listener) {
    this.listener = listener;
  }

  /** Starts the listener. Returns at once: Kafka is reached in the background. */
  public static StatusView start(
      InboxSettings settings, DataSource dataSource, Clock clock, MeterRegistry registry) {
    Objects.requireNonNull(settings, "settings");
    StatusListener listener =
        new StatusListener(
            settings,
            new StatusDecoder(Json.mapper()),
            new StatusStore(dataSource, clock),
            new StatusMetrics(registry, StatusStore.Outcome.class, outcome -> outcome.tag),
            registry);
    listener.start();
    return new StatusView(listener);
  }

  /**
   * The view's check for {@code /health}. Always UP, so a lagging status view never takes the API
   * out of a load balancer or gets the process restarted; the detail starts with {@code DEGRADED}
   * when no poll or broker contact happened within {@code writer.status.max-silence} (also the
   * gauge {@code herald.writer.status.degraded}, for alerts).
   */
  public HealthCheck healthCheck() {
    return HealthCheck.of(HEALTH_CHECK, () -> HealthCheck.Status.up(listener.health().detail()));
  }

  /** Whether the view lags (see {@link #healthCheck()}). */
  public boolean degraded() {
    return listener.health().degraded();
  }

  @Override
  public void close() {
    listener.close();
  }
}
