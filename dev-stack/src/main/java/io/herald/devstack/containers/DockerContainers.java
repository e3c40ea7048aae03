package io.herald.devstack.containers;

import org.testcontainers.DockerClientFactory;

/**
 * Stops and starts an existing container in place, keeping its id, volumes and host ports, so an
 * outage test sees the same server come back at the same address.
 */
final class DockerContainers {

  /** Seconds Docker waits for a clean shutdown before it kills the container. */
  private static final int STOP_TIMEOUT_SECONDS = 30;

  private DockerContainers() {}

  static void stop(String containerId) {
    DockerClientFactory.instance()
        .client()
        .stopContainerCmd(containerId)
        .withTimeout(STOP_TIMEOUT_SECONDS)
        .exec();
  }

  static void start(String containerId) {
    DockerClientFactory.instance().client().startContainerCmd(containerId).exec();
  }
}
