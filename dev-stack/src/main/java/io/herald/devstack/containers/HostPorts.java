package io.herald.devstack.containers;

import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/**
 * Fixed host-port bindings. Testcontainers maps random host ports, which Docker may change on a
 * container restart; a fixed binding keeps the JDBC URL and Kafka's advertised listener valid.
 */
final class HostPorts {

  private HostPorts() {}

  static int free() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free TCP port", e);
    }
  }

  static void bind(CreateContainerCmd cmd, int containerPort, int hostPort) {
    HostConfig hostConfig = cmd.getHostConfig() == null ? new HostConfig() : cmd.getHostConfig();
    hostConfig.withPortBindings(
        new PortBinding(Ports.Binding.bindPort(hostPort), ExposedPort.tcp(containerPort)));
    cmd.withHostConfig(hostConfig);
  }
}
