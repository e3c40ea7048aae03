package io.herald.demo;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import io.herald.devstack.process.HeraldCommandLine;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.DestinationSimulator;
import io.herald.devstack.simulator.Fault;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The demo at scale: thousands of intents from concurrent clients and two tenants, with exact
 * replays, payload conflicts, new revisions and three kinds of destination, while the simulator
 * accepts some articles and then times out. Then it does what an operator does: resolves the one
 * publication nobody can settle automatically with {@code herald deliveries resolve}, and proves
 * the result with {@code herald audit}. The herald command runs as a separate process, as an
 * operator runs it.
 */
public final class Showcase {

  /**
   * Shorter timeouts than the shipped ones, so that a stalled call becomes UNCERTAIN in seconds and
   * the reconciler looks at it a few seconds later; everything else is the shipped files (the
   * operator token and the role passwords are made up by {@link Pipeline} for each run).
   */
  public static final Map<String, String> OVERRIDES =
      Map.of(
          "HERALD_CONSUMER_DESTINATIONS_DEST_A_READ_TIMEOUT", "2s",
          "HERALD_CONSUMER_DESTINATIONS_DEST_B_READ_TIMEOUT", "2s",
          "HERALD_CONSUMER_DESTINATIONS_DEST_C_READ_TIMEOUT", "2s",
          "HERALD_CONSUMER_RECONCILE_GRACE_PERIOD", "2s",
          "HERALD_CONSUMER_RECONCILE_INTERVAL", "1s",
          "HERALD_CONSUMER_RECONCILE_LOOKUP_RETRY", "2s");

  /** The three kinds of destination, with the accept-then-timeout faults each gets. */
  public static final List<String> DESTINATIONS = List.of("dest-a", "dest-b", "dest-c");

  private static final Duration STALL = Duration.ofSeconds(3);
  private static final int FAULTS_A = 3;
  private static final int FAULTS_B = 1;
  private static final int FAULTS_C = 3;
  private static final int CLIENTS = 8;
  private static final String[] TENANTS = {"t1", "t2"};

  /** What the run showed; {@code ok} is the demo's verdict. */
  record Result(
      boolean ok,
      int intents,
      Map<Integer, Integer> statuses,
      int resolved,
      String resolvedJob,
      int auditExit,
      String auditSummary) {}

  /**
   * One request the clients send: an intent, an exact replay or a conflicting payload.
   *
   * @param expected the writer's right answer: 201, 200 for a replay, 409 for a conflict
   */
  public record Request(String tenant, String body, int expected) {}

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final Pipeline pipeline;
  private final URI writer;
  private final DestinationSimulator simulator;
  private final DataSource database;
  private final Map<String, String> cliEnv;
  private final Path configDir;
  private final PrintStream out;
  private final HeraldCommandLine herald;

  Showcase(Pipeline pipeline, DestinationSimulator simulator, Path outputDir, PrintStream out) {
    this.pipeline = pipeline;
    this.writer = pipeline.writerUri();
    this.simulator = simulator;
    this.database = pipeline.settings().postgres().dataSource(pipeline.settings().database());
    this.cliEnv = pipeline.cliEnv();
    // Absolute: the herald command runs in a directory of its own.
    this.configDir = pipeline.settings().configDir().toAbsolutePath();
    this.out = out;
    this.herald = new HeraldCommandLine(outputDir, Duration.ofMinutes(3));
  }

  /** A simulator standing in for the three destinations of the shipped consumer.properties. */
  public static DestinationSimulator startSimulator() {
    DestinationSimulator simulator = DestinationSimulator.start(Behaviour.cooperative());
    simulator.setBehaviour("/dest-a", Behaviour.cooperative());
    simulator.setBehaviour("/dest-b", Behaviour.bare());
    simulator.setBehaviour("/dest-c", Behaviour.bare().withLookup(true));
    return simulator;
  }

  Result run(int intents, Duration timeout) throws Exception {
    List<Request> originals = new ArrayList<>();
    List<Request> repeats = new ArrayList<>();
    workload(intents, new Random(42), "story-", originals, repeats);
    out.printf(
        "Sending %d intents (%d tenants, revisions, %d destinations) and %d replays and conflicts"
            + " from %d clients.%n",
        originals.size(), TENANTS.length, DESTINATIONS.size(), repeats.size(), CLIENTS);
    out.printf(
        "The simulator accepts %d articles at dest-a (honours keys), %d at dest-c (lookup only) and"
            + " %d at dest-b (neither), then stalls past the consumer's 2 s timeout.%n",
        FAULTS_A, FAULTS_C, FAULTS_B);
    simulator.failNext("dest-a", new Fault.StallAfterAccept(STALL), FAULTS_A);
    simulator.failNext("dest-c", new Fault.StallAfterAccept(STALL), FAULTS_C);
    simulator.failNext("dest-b", new Fault.StallAfterAccept(STALL), FAULTS_B);

    Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
    AtomicInteger sent = new AtomicInteger();
    AtomicInteger unexpected = new AtomicInteger();
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Progress progress = new Progress(sent, originals.size() + repeats.size())) {
      send(originals, statuses, sent, unexpected);
      // Replays and conflicts after their originals: each then has one right answer.
      send(repeats, statuses, sent, unexpected);
      progress.await(
          "every delivery settled or waiting for an operator",
          c ->
              c.needsReconciliation() == FAULTS_B
                  && c.uncertain() == 0
                  && c.published() + c.needsReconciliation() + c.blocked() == intents,
          deadline);
      List<String> resolvedJobs = resolveAsAnOperator();
      progress.await(
          "every delivery published and the writer's view following",
          c -> c.published() == intents && c.writerPublished() == intents,
          deadline);
      out.println();
      out.println("$ herald audit --remote-articles dest-a=... dest-b=... dest-c=...");
      HeraldCommandLine.Result audit = audit();
      out.print(audit.out());
      String summary = lastLine(audit.out());
      boolean settled =
          summary.contains(" uncertain=0 ") && summary.contains(" needs_reconciliation=0 ");
      boolean ok =
          audit.exitCode() == 0
              && settled
              && unexpected.get() == 0
              && statuses.getOrDefault(201, 0) == intents;
      boolean allResolved = resolvedJobs.size() == FAULTS_B;
      return new Result(
          ok && allResolved,
          intents,
          new TreeMap<>(statuses),
          resolvedJobs.size(),
          resolvedJobs.isEmpty() ? null : resolvedJobs.getFirst(),
          audit.exitCode(),
          summary);
    }
  }

  /**
   * Unique intents: articles of two tenants, one to three revisions each, each revision to one to
   * three destinations; then an exact replay of every tenth and a conflicting payload for every
   * twenty-fifth. Article ids are {@code articlePrefix} and a number from 0.
   */
  public static void workload(
      int intents,
      Random random,
      String articlePrefix,
      List<Request> originals,
      List<Request> repeats) {
    int article = 0;
    while (originals.size() < intents) {
      String tenant = TENANTS[article % TENANTS.length];
      int revisions = 1 + random.nextInt(3);
      for (int r = 1; r <= revisions && originals.size() < intents; r++) {
        List<String> destinations = new ArrayList<>(DESTINATIONS);
        Collections.shuffle(destinations, random);
        int count = 1 + random.nextInt(DESTINATIONS.size());
        for (int d = 0; d < count && originals.size() < intents; d++) {
          String key =
              "\"articleId\":\"" + articlePrefix + article + "\",\"revisionId\":\"r-" + r + "\"";
          String destination = "\"destination\":\"" + destinations.get(d) + "\"";
          String body =
              "{"
                  + key
                  + ","
                  + destination
                  + ",\"content\":{\"title\":\"Article "
                  + article
                  + " revision "
                  + r
                  + "\"}}";
          originals.add(new Request(tenant, body, 201));
          int n = originals.size();
          if (n % 10 == 0) {
            repeats.add(new Request(tenant, body, 200));
          }
          if (n % 25 == 0) {
            String other =
                "{" + key + "," + destination + ",\"content\":{\"title\":\"Something else\"}}";
            repeats.add(new Request(tenant, other, 409));
          }
        }
      }
      article++;
    }
  }

  private void send(
      List<Request> requests,
      Map<Integer, Integer> statuses,
      AtomicInteger sent,
      AtomicInteger unexpected)
      throws Exception {
    try (ExecutorService clients = Executors.newFixedThreadPool(CLIENTS)) {
      List<Future<?>> futures = new ArrayList<>();
      for (Request request : requests) {
        futures.add(
            clients.submit(
                () -> {
                  int status = post(request);
                  statuses.merge(status, 1, Integer::sum);
                  sent.incrementAndGet();
                  if (status != request.expected()) {
                    unexpected.incrementAndGet();
                  }
                  return null;
                }));
      }
      for (Future<?> future : futures) {
        future.get();
      }
    }
  }

  private int post(Request request) throws IOException, InterruptedException {
    HttpRequest post =
        HttpRequest.newBuilder(writer.resolve("/v1/publications"))
            .header("Authorization", "Bearer demo-token-" + request.tenant())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(request.body(), StandardCharsets.UTF_8))
            .timeout(Duration.ofSeconds(30))
            .build();
    return http.send(post, HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  /**
   * What an operator does with a publication Herald cannot settle: lists it, asks the destination
   * whether the article exists (here the simulator's admin listing stands in for its UI), and
   * records the answer with who and why.
   */
  private List<String> resolveAsAnOperator() throws Exception {
    out.println();
    out.println("$ herald deliveries list --state NEEDS_RECONCILIATION");
    HeraldCommandLine.Result list = cli("deliveries", "list", "--state", "NEEDS_RECONCILIATION");
    out.print(list.out());
    HeraldCommandLine.Result json =
        cli("deliveries", "list", "--state", "NEEDS_RECONCILIATION", "--json");
    List<String> resolved = new ArrayList<>();
    for (JsonNode delivery : Json.mapper().readTree(json.out())) {
      String id = delivery.path("id").asText();
      String remoteId = remoteIdOf(delivery.path("idempotencyKey").asText());
      String[] resolve = {
        "deliveries",
        "resolve",
        id,
        "--published",
        "--remote-id",
        remoteId,
        "--reason",
        "found at the destination",
        "--actor",
        "demo-operator"
      };
      out.println(
          "$ herald "
              + String.join(" ", resolve)
                  .replace("found at the destination", "'found at the destination'"));
      HeraldCommandLine.Result result = cli(resolve);
      out.print(result.out());
      if (result.exitCode() == 0) {
        resolved.add(delivery.path("jobId").asText());
      } else {
        out.print(result.err());
      }
    }
    out.println();
    return resolved;
  }

  private String remoteIdOf(String externalReference) throws IOException, InterruptedException {
    URI uri =
        URI.create(
            simulator.baseUri()
                + "/admin/articles?externalReference="
                + URLEncoder.encode(externalReference, StandardCharsets.UTF_8));
    String body =
        http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString())
            .body();
    JsonNode articles = Json.mapper().readTree(body).path("articles");
    if (articles.size() != 1) {
      throw new IllegalStateException(
          "expected one article with reference " + externalReference + ", found " + body);
    }
    return articles.get(0).path("id").asText();
  }

  private HeraldCommandLine.Result audit() throws IOException, InterruptedException {
    String listing = simulator.baseUri() + "/admin/articles";
    List<String> args = new ArrayList<>(List.of("audit"));
    for (String destination : DESTINATIONS) {
      args.add("--remote-articles");
      args.add(destination + "=" + listing);
    }
    return cli(args.toArray(String[]::new));
  }

  private HeraldCommandLine.Result cli(String... args) throws IOException, InterruptedException {
    List<String> all = new ArrayList<>(List.of("--config-dir", configDir.toString()));
    all.addAll(List.of(args));
    return herald.run(cliEnv, all.toArray(String[]::new));
  }

  private static String lastLine(String text) {
    String[] lines = text.strip().split("\\R");
    return lines[lines.length - 1];
  }

  /** Counts the progress line shows, from the consumer's and the writer's tables. */
  private record Counts(
      int published,
      int uncertain,
      int needsReconciliation,
      int open,
      int writerPublished,
      int blocked) {}

  private static final String COUNTS =
      "SELECT count(*) FILTER (WHERE state = 'PUBLISHED'),"
          + " count(*) FILTER (WHERE state = 'UNCERTAIN'),"
          + " count(*) FILTER (WHERE state = 'NEEDS_RECONCILIATION'),"
          + " count(*) FILTER (WHERE state IN ('PENDING', 'DISPATCHING', 'RETRY_WAIT')),"
          + " (SELECT count(*) FROM writer.publication_job WHERE status = 'PUBLISHED'),"
          // Later revisions wait behind an earlier one nobody has settled (guarantee 5).
          + " count(*) FILTER (WHERE state IN ('PENDING', 'RETRY_WAIT') AND EXISTS ("
          + "   SELECT 1 FROM consumer.delivery e WHERE e.tenant_id = d.tenant_id"
          + "   AND e.article_id = d.article_id AND e.destination = d.destination"
          + "   AND e.seq < d.seq AND e.state = 'NEEDS_RECONCILIATION'))"
          + " FROM consumer.delivery d";

  /** The live progress line: in place on a terminal, one line every few seconds in a log. */
  private final class Progress implements AutoCloseable {
    private final AtomicInteger sent;
    private final int total;
    private final boolean terminal = System.console() != null;
    private final Thread printer;
    private volatile Counts last = new Counts(0, 0, 0, 0, 0, 0);
    private volatile boolean running = true;
    private volatile boolean live = true;

    /** What was published before the showcase (the demo's first scenario): not counted. */
    private final Counts before;

    Progress(AtomicInteger sent, int total) throws SQLException {
      this.sent = sent;
      this.total = total;
      this.before = query();
      this.printer = Thread.ofPlatform().daemon().name("showcase-progress").start(this::loop);
    }

    private void loop() {
      int tick = 0;
      while (running) {
        try {
          last = counts();
          if (live && (terminal || tick % 5 == 0)) {
            print();
          }
          tick++;
          Thread.sleep(terminal ? 500 : 1000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        } catch (SQLException e) {
          out.println("  (progress unavailable: " + e.getMessage() + ")");
        }
      }
    }

    private void print() {
      Counts c = last;
      String line =
          String.format(
              "  sent %d/%d  published %d  in progress %d  uncertain %d  needs reconciliation %d",
              sent.get(), total, c.published(), c.open(), c.uncertain(), c.needsReconciliation());
      if (terminal) {
        out.print("\r" + line + "\u001b[K");
        out.flush();
      } else {
        out.println(line);
      }
    }

    void await(String what, java.util.function.Predicate<Counts> done, long deadline)
        throws Exception {
      live = true;
      while (true) {
        // A process that exited ends the wait now, named, rather than at the deadline.
        pipeline.requireAllRunning();
        Counts c = counts();
        last = c;
        if (done.test(c)) {
          print();
          if (terminal) {
            out.println();
          }
          // Quiet while the herald command's output follows; the next await resumes it.
          live = false;
          return;
        }
        if (System.nanoTime() > deadline) {
          out.println();
          throw new IllegalStateException("timed out waiting for " + what + "; last " + c);
        }
        Thread.sleep(200);
      }
    }

    /** The showcase's own counts: published ones less those before it started. */
    private Counts counts() throws SQLException {
      Counts now = query();
      return new Counts(
          now.published() - before.published(),
          now.uncertain(),
          now.needsReconciliation(),
          now.open(),
          now.writerPublished() - before.writerPublished(),
          now.blocked());
    }

    private Counts query() throws SQLException {
      try (Connection connection = database.getConnection();
          Statement statement = connection.createStatement();
          ResultSet row = statement.executeQuery(COUNTS)) {
        row.next();
        return new Counts(
            row.getInt(1),
            row.getInt(2),
            row.getInt(3),
            row.getInt(4),
            row.getInt(5),
            row.getInt(6));
      }
    }

    @Override
    public void close() throws InterruptedException {
      running = false;
      printer.interrupt();
      printer.join(2000);
    }
  }
}
