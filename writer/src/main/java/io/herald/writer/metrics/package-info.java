/**
 * The writer's meters, in one place (Prometheus renders {@code herald.writer.x} as {@code
 * herald_writer_x}). This package depends on no other writer package; the components take the meter
 * class they record to:
 *
 * <ul>
 *   <li>{@link io.herald.writer.metrics.RequestMetrics} (the API): {@code herald.writer.requests}
 *       {route, outcome}, a timer with a latency histogram, and {@code herald.writer.batch.items}
 *       {outcome}.
 *   <li>{@link io.herald.writer.metrics.StatusMetrics} (the status view): {@code
 *       herald.writer.status.events} {outcome} and {@code herald.writer.status.failures}.
 *   <li>{@link io.herald.writer.metrics.RetentionMetrics} (the retention purge): {@code
 *       herald.writer.outbox.purged}, {@code herald.writer.outbox.purge.failures}, {@code
 *       herald.writer.status.inbox.purged}, {@code herald.writer.status.inbox.purge.failures}.
 * </ul>
 *
 * <p>Registered elsewhere, because they read another library's live objects: the API server's Jetty
 * gauges ({@code herald.writer.http.active}, {@code .queued}, {@code .rejected}, in {@code
 * http.ApiServer}), the status view's gauges ({@code herald.writer.status.last.poll.age}, {@code
 * .broker.contact.age}, {@code .degraded}, the counter {@code .linger.dropped}) and its Kafka
 * client metrics (in {@code status.StatusListener}), and the connection pool's and JVM's meters (in
 * {@code runtime}).
 */
package io.herald.writer.metrics;
