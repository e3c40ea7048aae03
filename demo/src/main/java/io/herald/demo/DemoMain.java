package io.herald.demo;

import io.herald.common.event.Topics;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.embedded.EmbeddedStack;
import io.herald.devstack.process.ChildJvm;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.DestinationSimulator;
import io.herald.schema.CaptureSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CountDownLatch;

/**
 * {@code ./demo.sh}: the whole pipeline on this machine with no Docker. PostgreSQL and Kafka start
 * from the build's own dependencies under {@code .demo/}, the destination simulator stands in for
 * two publishing APIs (one honours idempotency keys and supports lookup, one does neither), and the
 * writer, relay and consumer run as three processes with their shipped property files.
 *
 * <p>With {@code --keep-running} everything stays up after the scenario until Ctrl-C, for poking at
 * the APIs and metrics by hand.
 */
public final class DemoMain {

  private static final String DATABASE = "herald";

  private DemoMain() {}

  public static void main(String[] args) throws Exception {
    boolean keepRunning = false;
    for (String arg : args) {
      if (arg.equals("--keep-running")) {
        keepRunning = true;
      } else {
        System.err.println("Unknown argument " + arg + "; the only option is --keep-running");
        System.exit(2);
      }
    }
    Path home = Path.of(".demo").toAbsolutePath();
    Resources resources = new Resources();
    // Ctrl-C must stop the child processes too: the JVM does not take its children down with it.
    Runtime.getRuntime().addShutdownHook(new Thread(resources::close, "demo-stop"));
    boolean ok;
    try {
      ok = run(home, resources, keepRunning);
    } finally {
      resources.close();
    }
    System.exit(ok ? 0 : 1);
  }

  private static boolean run(Path home, Resources resources, boolean keepRunning) throws Exception {
    System.out.println("Starting PostgreSQL and Kafka under " + home + " ...");
    EmbeddedStack stack = resources.add(EmbeddedStack.start(home.resolve("stack")));
    DestinationSimulator simulator = resources.add(startSimulator());
    stack.postgres().createDatabase(DATABASE);
    createTopics(stack.kafka());
    PipelineSettings settings =
        new PipelineSettings(
            stack.postgres(),
            DATABASE,
            stack.kafka().bootstrapServers(),
            CaptureSettings.DEFAULT_PUBLICATION,
            CaptureSettings.DEFAULT_SLOT,
            Topics.PUBLICATION_EVENTS,
            Topics.DELIVERY_EVENTS,
            Topics.PUBLICATION_DLQ,
            Topics.RELAY_OFFSETS,
            "herald-consumer",
            simulator.baseUri().toString(),
            Path.of("connect-config"),
            home.resolve("logs"));
    System.out.println(
        "Starting writer, relay and consumer (logs in " + settings.logDir() + ") ...");
    Pipeline pipeline = resources.add(Pipeline.start(settings));
    for (ChildJvm process : pipeline.processes()) {
      System.out.printf("  %-8s pid %d%n", process.name(), process.pid());
    }
    System.out.println();
    System.out.println(
        "Writer API on " + pipeline.writerUri() + " (bearer token " + Scenario.TOKEN + ")");
    Path tokenFile = writeOperatorToken(home, pipeline.operatorToken());
    System.out.println(
        "Operator API on "
            + pipeline.consumerOpsUri()
            + "/v1/deliveries (bearer token in "
            + tokenFile
            + ", made up for this run): ./herald deliveries list --state NEEDS_RECONCILIATION"
            + " --consumer-url "
            + pipeline.consumerOpsUri()
            + " --token-file "
            + tokenFile);
    System.out.println(
        "Each process connects with its own database role: herald_writer, herald_relay,"
            + " herald_consumer (migrations: herald_migrator)");
    System.out.println();
    Scenario.Outcome outcome =
        new Scenario(
                pipeline.writerUri(),
                simulator,
                stack.kafka().bootstrapServers(),
                Topics.DELIVERY_EVENTS,
                System.out)
            .run(Duration.ofSeconds(90));
    boolean ok =
        outcome.articles().size() == Scenario.EXPECTED_ARTICLES
            && outcome.articlesPerReference().values().stream().allMatch(n -> n == 1)
            && "PUBLISHED".equals(outcome.firstJob().path("status").asText());
    System.out.println(
        ok ? "Demo finished: one remote article per intent." : "Demo FAILED: see the logs.");
    if (keepRunning) {
      System.out.println("Everything keeps running; Ctrl-C stops it.");
      new CountDownLatch(1).await();
    }
    return ok;
  }

  /** The operator token in a file only this user can read, for {@code herald --token-file}. */
  private static Path writeOperatorToken(Path home, String token) throws IOException {
    Path file = home.resolve("operator-token");
    Files.deleteIfExists(file);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, token);
    return file;
  }

  private static DestinationSimulator startSimulator() {
    DestinationSimulator simulator = DestinationSimulator.start(Behaviour.cooperative());
    simulator.setBehaviour("/dest-a", Behaviour.cooperative());
    simulator.setBehaviour("/dest-b", Behaviour.bare());
    return simulator;
  }

  private static void createTopics(KafkaBroker kafka) {
    kafka.createTopic(Topics.PUBLICATION_EVENTS, 3);
    kafka.createTopic(Topics.DELIVERY_EVENTS, 3);
    kafka.createTopic(Topics.PUBLICATION_DLQ, 1);
  }

  /** What the demo started, closed once in reverse order, from the main thread or on Ctrl-C. */
  private static final class Resources {
    private final Deque<AutoCloseable> opened = new ArrayDeque<>();

    synchronized <T extends AutoCloseable> T add(T resource) {
      opened.push(resource);
      return resource;
    }

    synchronized void close() {
      while (!opened.isEmpty()) {
        AutoCloseable resource = opened.pop();
        try {
          resource.close();
        } catch (Exception e) {
          System.err.println("Stopping " + resource + " failed: " + e);
        }
      }
    }
  }
}
