package io.herald.devstack.simulator;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the destination simulator as its own process (demo, docker-compose, benchmarks).
 *
 * <p>Arguments, all optional: {@code --host=0.0.0.0 --port=8090 --idempotency=honour|ignore
 * --lookup=on|off --latency-ms=0 --token=secret}, and the destination profile played: {@code
 * --header=Idempotency-Key} (the key's header), {@code --key-window-ms=0} (keys forgotten that long
 * after their article; 0: never), {@code --repeat=replay|conflict} (a repeated key gets 200, or 409
 * with the id), {@code --replay-marker=Idempotent-Replayed} (header on replayed answers), {@code
 * --replay-errors=on|off} (errors saved and replayed for their key), {@code --fencing=on|off} (a
 * create with a lower {@code Herald-Fencing-Token} than seen for its key is refused with 409). The
 * behaviour options may also be given per path prefix, so one simulator stands in for several
 * destinations: {@code --dest-b.idempotency=ignore --dest-b.lookup=off} (or {@code
 * --/dest-b.lookup=off}) applies to {@code /dest-b/articles}. Arguments not starting with {@code
 * --} are ignored (the images pass every process a config path).
 */
public final class SimulatorMain {

  private SimulatorMain() {}

  public static void main(String[] args) throws InterruptedException {
    String host = "0.0.0.0";
    int port = 8090;
    String token = null;
    Behaviour behaviour = Behaviour.cooperative();
    Map<String, Behaviour> prefixed = new LinkedHashMap<>();
    for (String arg : args) {
      if (!arg.startsWith("--")) {
        // Herald's images pass every process a config file path; the simulator has none.
        continue;
      }
      int eq = arg.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("Expected --name=value, got: " + arg);
      }
      String name = arg.substring(2, eq);
      String value = arg.substring(eq + 1);
      int dot = name.lastIndexOf('.');
      if (dot > 0) {
        String prefix = name.substring(0, dot).replaceAll("^/+", "");
        Behaviour base = prefixed.getOrDefault(prefix, Behaviour.cooperative());
        prefixed.put(prefix, apply(base, name.substring(dot + 1), value));
        continue;
      }
      switch (name) {
        case "host" -> host = value;
        case "port" -> port = Integer.parseInt(value);
        case "token" -> token = value;
        default -> behaviour = apply(behaviour, name, value);
      }
    }
    DestinationSimulator simulator = DestinationSimulator.start(host, port, behaviour, token);
    prefixed.forEach(simulator::setBehaviour);
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

  private static Behaviour apply(Behaviour behaviour, String name, String value) {
    return switch (name) {
      case "idempotency" -> behaviour.withIdempotency(parseChoice(name, value, "honour", "ignore"));
      case "lookup" -> behaviour.withLookup(parseChoice(name, value, "on", "off"));
      case "latency-ms" -> behaviour.withLatency(Duration.ofMillis(Long.parseLong(value)));
      case "header" -> behaviour.withIdempotencyHeader(value);
      case "key-window-ms" -> behaviour.withKeyWindow(Duration.ofMillis(Long.parseLong(value)));
      case "repeat" ->
          behaviour.withRepeat(
              parseChoice(name, value, "conflict", "replay")
                  ? Behaviour.Repeat.CONFLICT_EXISTS
                  : Behaviour.Repeat.REPLAY);
      case "replay-marker" -> behaviour.withReplayMarker(value.isEmpty() ? null : value);
      case "replay-errors" -> behaviour.withErrorReplay(parseChoice(name, value, "on", "off"));
      case "fencing" -> behaviour.withFencing(parseChoice(name, value, "on", "off"));
      default -> throw new IllegalArgumentException("Unknown simulator option --" + name);
    };
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
