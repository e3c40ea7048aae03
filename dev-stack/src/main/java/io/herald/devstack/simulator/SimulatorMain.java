package io.herald.devstack.simulator;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the destination simulator as its own process (demo, docker-compose, benchmarks).
 *
 * <p>Arguments, all optional: {@code --host=0.0.0.0 --port=8090 --idempotency=honour|ignore
 * --lookup=on|off --latency-ms=0 --token=secret}.
 */
public final class SimulatorMain {

  private SimulatorMain() {}

  public static void main(String[] args) throws InterruptedException {
    String host = "0.0.0.0";
    int port = 8090;
    String token = null;
    Behaviour behaviour = Behaviour.cooperative();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("Expected --name=value, got: " + arg);
      }
      String name = arg.substring(2, eq);
      String value = arg.substring(eq + 1);
      switch (name) {
        case "host" -> host = value;
        case "port" -> port = Integer.parseInt(value);
        case "token" -> token = value;
        case "idempotency" ->
            behaviour = behaviour.withIdempotency(parseChoice(name, value, "honour", "ignore"));
        case "lookup" -> behaviour = behaviour.withLookup(parseChoice(name, value, "on", "off"));
        case "latency-ms" ->
            behaviour = behaviour.withLatency(Duration.ofMillis(Long.parseLong(value)));
        default -> throw new IllegalArgumentException("Unknown simulator option --" + name);
      }
    }
    DestinationSimulator simulator = DestinationSimulator.start(host, port, behaviour, token);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  simulator.close();
                  stopped.countDown();
                },
                "simulator-shutdown"));
    stopped.await();
  }

  private static boolean parseChoice(String name, String value, String yes, String no) {
    if (yes.equals(value)) {
      return true;
    }
    if (no.equals(value)) {
      return false;
    }
    throw new IllegalArgumentException(
        "--" + name + " must be " + yes + " or " + no + ", got: " + value);
  }
}
