package io.herald.devstack.containers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;

/** Runs only where a Docker engine is reachable; the embedded stack is what CI runs. */
class ContainerStackIT {

  @Test
  void shouldStartLogicalPostgresAndKafkaInDocker() throws Exception {
    assumeTrue(DockerClientFactory.instance().isDockerAvailable(), "no Docker engine reachable");
    try (ContainerStack stack = ContainerStack.start()) {
      try (Connection connection =
              DriverManager.getConnection(
                  stack.postgres().jdbcUrl("postgres"),
                  stack.postgres().user(),
                  stack.postgres().password());
          Statement statement = connection.createStatement();
          ResultSet rs = statement.executeQuery("SHOW wal_level")) {
        rs.next();
        assertEquals("logical", rs.getString(1));
      }
      stack.kafka().createTopic("herald.container.check", 1);
      stack.postgres().stop();
      stack.postgres().start();
      stack.kafka().stop();
      stack.kafka().start();
      stack.kafka().createTopic("herald.container.after-restart", 1);
    }
  }
}
