package io.herald.runtime.metrics;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** The metrics registry of a Herald process. */
public final class Metrics {

  /** Content type of {@link PrometheusMeterRegistry#scrape()} output. */
  public static final String PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private Metrics() {}

  /**
   * A Prometheus registry with JVM (memory, GC, threads, class loading), processor, uptime and file
   * descriptor metrics, every meter tagged {@code process=<process>}. Thread-safe. Close it at
   * shutdown (it also stops the GC listener).
   */
  public static PrometheusMeterRegistry newRegistry(String process) {
    JvmGcMetrics gc = new JvmGcMetrics();
    PrometheusMeterRegistry registry =
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT) {
          @Override
          public void close() {
            // JvmGcMetrics holds GC notification listeners; release them with the registry.
            gc.close();
            super.close();
          }
        };
    registry.config().commonTags("process", process);
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    return registry;
  }
}
