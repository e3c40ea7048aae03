package io.herald.devstack.containers;

import io.herald.devstack.HeraldStack;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.PostgresServer;

/**
 * PostgreSQL and Kafka in Docker through Testcontainers, for machines with a Docker engine ({@code
 * -Dherald.stack=containers}). Host ports are fixed when the containers are created, so {@code
 * stop()}/{@code start()} (a Docker stop and start of the same container) keep ports and data.
 * Thread-safe.
 */
public final class ContainerStack implements HeraldStack, AutoCloseable {

  private final ContainerPostgresServer postgres;
  private final ContainerKafkaBroker kafka;

  private ContainerStack(ContainerPostgresServer postgres, ContainerKafkaBroker kafka) {
    this.postgres = postgres;
    this.kafka = kafka;
  }

  /** Starts both containers and returns when they accept connections. */
  public static ContainerStack start() {
    ContainerPostgresServer postgres = ContainerPostgresServer.launch();
    try {
      return new ContainerStack(postgres, ContainerKafkaBroker.launch());
    } catch (RuntimeException e) {
      postgres.close();
      throw e;
    }
  }

  @Override
  public PostgresServer postgres() {
    return postgres;
  }

  @Override
  public KafkaBroker kafka() {
    return kafka;
  }

  /** Removes both containers. */
  @Override
  public void close() {
    try {
      kafka.close();
    } finally {
      postgres.close();
    }
  }
}
