package io.herald.devstack.containers;

import io.herald.devstack.PostgresServer;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/** PostgreSQL 17 in Docker with the same settings as the embedded server. */
final class ContainerPostgresServer implements PostgresServer {

  private static final DockerImageName IMAGE = DockerImageName.parse("postgres:17-alpine");
  private static final int CONTAINER_PORT = 5432;

  private final PostgreSQLContainer container;
  private final int hostPort;
  private boolean running;

  private ContainerPostgresServer(PostgreSQLContainer container, int hostPort) {
    this.container = container;
    this.hostPort = hostPort;
  }

  @SuppressWarnings("resource") // closed by close()
  static ContainerPostgresServer launch() {
    int hostPort = HostPorts.free();
    PostgreSQLContainer container =
        new PostgreSQLContainer(IMAGE)
            .withDatabaseName("postgres")
            .withUsername("postgres")
            .withPassword("postgres")
            .withCommand(
                "postgres",
                "-c",
                "wal_level=logical",
                "-c",
                "max_replication_slots=64",
                "-c",
                "max_wal_senders=64",
                "-c",
                "max_connections=300",
                "-c",
                "fsync=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "timezone=UTC")
            .withCreateContainerCmdModifier(cmd -> HostPorts.bind(cmd, CONTAINER_PORT, hostPort));
    container.start();
    ContainerPostgresServer server = new ContainerPostgresServer(container, hostPort);
    server.running = true;
    return server;
  }

  @Override
  public String host() {
    return container.getHost();
  }

  @Override
  public int port() {
    return hostPort;
  }

  @Override
  public String user() {
    return container.getUsername();
  }

  @Override
  public String password() {
    return container.getPassword();
  }

  @Override
  public synchronized void stop() {
    if (!running) {
      return;
    }
    DockerContainers.stop(container.getContainerId());
    running = false;
  }

  @Override
  public synchronized void stopImmediately() {
    if (!running) {
      return;
    }
    // The image runs postgres as PID 1, so the signal reaches the postmaster itself.
    DockerContainers.signalAndAwaitExit(container.getContainerId(), "SIGQUIT");
    running = false;
  }

  @Override
  public synchronized void start() {
    if (running) {
      return;
    }
    DockerContainers.start(container.getContainerId());
    ContainerReadiness.awaitTcp(host(), hostPort, "PostgreSQL");
    ContainerReadiness.awaitJdbc(this);
    running = true;
  }

  synchronized void close() {
    container.stop();
    running = false;
  }
}
