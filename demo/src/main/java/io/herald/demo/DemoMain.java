package io.herald.demo;

import io.herald.common.event.Topics;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.embedded.EmbeddedStack;
import io.herald.devstack.process.ChildJvm;
import io.herald.devstack.simulator.DestinationSimulator;
import io.herald.schema.CaptureSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;

/**
 * {@code ./demo.sh}: the whole pipeline on this machine with no Docker. PostgreSQL and Kafka start
 * from the build's own dependencies under {@code .demo/}, the destination simulator stands in for
 * three publishing APIs (one honours idempotency keys, one can only look articles up, one does
 * neither), and the writer, relay and consumer run as three processes with their shipped property
 * files. A short scenario shows replays and conflicts one by one; then {@link Showcase} runs
 * thousands of intents through faults and ends with {@code herald audit}. Exit 0 only when the
 * audit finds nothing violated and every uncertain publication is settled.
 *
 * <p>With {@code --keep-running} everything stays up afterwards until Ctrl-C, for {@code herald
 * monitor}, {@code herald trace} and poking at the APIs by hand; {@code --intents N} changes the
 * count (default 2000).
 */
public final class DemoMain {

  private static final String DATABASE = "herald";
  private static final int DEFAULT_INTENTS = 2000;

  private DemoMain() {}

  public static void main(String[] args) throws Exception {
    boolean keepRunning = false;
    int intents = DEFAULT_INTENTS;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--keep-running")) {
        keepRunning = true;
      } else if (args[i].equals("--intents")
          && i + 1 < args.length
          && args[i + 1].matches("[1-9]\\d{0,5}")) {
        intents = Integer.parseInt(args[++i]);
      } else {
        System.err.println(
            "Unknown argument "
                + args[i]
                + "; options: --keep-running, --intents N (1 to 999999, default "
                + DEFAULT_INTENTS
                + ")");
        System.exit(2);
      }
    }
    Path home = Path.of(".demo").toAbsolutePath();
    Resources resources = new Resources();
    // Ctrl-C must stop the child processes too: the JVM does not take its children down with it.
    Runtime.getRuntime().addShutdownHook(new Thread(resources::close, "demo-stop"));
    boolean ok;
    try {
      ok = run(home, resources, keepRunning, intents);
    } finally {
      resources.close();
    }
    System.exit(ok ? 0 : 1);
  }

  private static boolean run(Path home, Resources resources, boolean keepRunning, int intents)
      throws Exception {
    System.out.println("Starting PostgreSQL and Kafka under " + home + " ...");
    EmbeddedStack stack = resources.add(EmbeddedStack.start(home.resolve("stack")));
    DestinationSimulator simulator = resources.add(Showcase.startSimulator());
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
    Pipeline pipeline = resources.add(Pipeline.start(settings, Showcase.OVERRIDES));
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
        new Scenario(pipeline, simulator, System.out).run(Duration.ofSeconds(90));
    boolean scenarioOk =
        outcome.articles().size() == Scenario.EXPECTED_ARTICLES
            && outcome.articlesPerReference().values().stream().allMatch(n -> n == 1)
            && "PUBLISHED".equals(outcome.firstJob().path("status").asText());
    System.out.println();
    Showcase.Result showcase =
        new Showcase(pipeline, simulator, home.resolve("herald-runs"), System.out)
            .run(intents, Duration.ofMinutes(3));
    boolean ok = scenarioOk && showcase.ok();
    System.out.println();
    System.out.println(
        ok
            ? "Demo finished: "
                + intents
                + " intents, one remote article each, nothing lost, every uncertain one settled."
            : "Demo FAILED: see the output above and the logs in " + settings.logDir());
    if (keepRunning) {
      Path env = writeCliEnv(home, pipeline.cliEnv());
      System.out.println();
      System.out.println("Everything keeps running; Ctrl-C stops it. Try, in another shell:");
      System.out.println("  source " + env + " && ./herald monitor");
      if (showcase.resolvedJob() != null) {
        System.out.println("  source " + env + " && ./herald trace " + showcase.resolvedJob());
      }
      System.out.println("  source " + env + " && ./herald audit");
      new CountDownLatch(1).await();
    }
    return ok;
  }

  /**
   * The herald command's environment for this run (ports are chosen at start; the role passwords
   * and the operator token are made up for it), in a file only this user can read.
   */
  private static Path writeCliEnv(Path home, Map<String, String> env) throws IOException {
    StringBuilder text = new StringBuilder("# herald's settings for the running demo\n");
    new TreeMap<>(env)
        .forEach(
            (name, value) ->
                text.append("export ").append(name).append("='").append(value).append("'\n"));
    return writePrivate(home.resolve("herald.env"), text.toString());
  }

  /** The operator token in a file only this user can read, for {@code herald --token-file}. */
  private static Path writeOperatorToken(Path home, String token) throws IOException {
    return writePrivate(home.resolve("operator-token"), token);
  }

  private static Path writePrivate(Path file, String text) throws IOException {
    Files.deleteIfExists(file);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, text);
    return file;
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
