package io.herald.devstack.containers;

import java.util.concurrent.TimeUnit;
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

  /** Sends {@code signal} to the container's main process and waits until the container exits. */
  static void signalAndAwaitExit(String containerId, String signal) {
    DockerClientFactory.instance().client().killContainerCmd(containerId).withSignal(signal).exec();
    DockerClientFactory.instance()
        .client()
        .waitContainerCmd(containerId)
        .start()
        .awaitStatusCode(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  static void start(String containerId) {
    DockerClientFactory.instance().client().startContainerCmd(containerId).exec();
  }
}
