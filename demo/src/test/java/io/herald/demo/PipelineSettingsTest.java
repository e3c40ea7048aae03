package io.herald.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.demo.PipelineSettings.ProcessLinks;
import io.herald.devstack.PostgresServer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class PipelineSettingsTest {

  @Test
  void shouldGiveTheProcessesTheDirectAddressesWhenNoLinkIsProxied() {
    PipelineSettings settings = settings();

    assertThat(settings.processLinks()).isEqualTo(settings.directLinks());
    assertThat(settings.processLinks().jdbcUrl("herald"))
        .isEqualTo(settings.postgres().jdbcUrl("herald"));
  }

  @Test
  void shouldKeepTheDirectAddressesForTheOperatorWhenTheProcessesGoThroughProxies() {
    ProcessLinks proxied =
        new ProcessLinks("127.0.0.1", 41000, "127.0.0.1:41001", "http://127.0.0.1:41002");

    PipelineSettings settings = settings().withProcessLinks(proxied);

    assertThat(settings.processLinks()).isEqualTo(proxied);
    assertThat(settings.processLinks().jdbcUrl("herald"))
        .isEqualTo("jdbc:postgresql://127.0.0.1:41000/herald");
    assertThat(settings.directLinks())
        .isEqualTo(
            new ProcessLinks("db.local", 5432, "kafka.local:9092", "http://simulator.local:8090"));
    assertThat(settings.bootstrapServers()).isEqualTo("kafka.local:9092");
  }

  private static PipelineSettings settings() {
    return new PipelineSettings(
        new FixedPostgres(),
        "herald",
        "kafka.local:9092",
        "herald_outbox",
        "herald_relay",
        "publication-events",
        "delivery-events",
        "dlq",
        "relay-offsets",
        "herald-consumer",
        "http://simulator.local:8090",
        Path.of("connect-config"),
        Path.of("target", "logs"));
  }

  /** An address only: these tests never connect. */
  private static final class FixedPostgres implements PostgresServer {
    @Override
    public String host() {
      return "db.local";
    }

    @Override
    public int port() {
      return 5432;
    }

    @Override
    public String user() {
      return "postgres";
    }

    @Override
    public String password() {
      return "postgres";
    }

    @Override
    public void stop() {
      throw new UnsupportedOperationException("not a server");
    }

    @Override
    public void stopImmediately() {
      throw new UnsupportedOperationException("not a server");
    }

    @Override
    public void start() {
      throw new UnsupportedOperationException("not a server");
    }
  }
}
